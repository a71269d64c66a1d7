// What a request's realtime events say in its trace, shared by both ways of tracing (trace.ts,
// span-records.ts): a publication is a PRODUCER span `publish <channel>` under the server span
// (OpenTelemetry's messaging conventions), a stream opened or refused an event on the server span.
import type { Attributes } from '@opentelemetry/api'
import type { AnyEvent } from 'fw'

/** A publication's span: its name, attributes and when (ms after the request's start). */
export interface PublishSpan {
  readonly name: string
  readonly at: number
  readonly attributes: Attributes
}

/** A stream's event on the server span. */
export interface StreamEvent {
  readonly name: 'realtime.subscribed' | 'realtime.refused'
  readonly at: number
  readonly attributes: Attributes
}

/** The publications and streams of a request's events, in order. */
export function realtimeParts(events: readonly AnyEvent[]): {
  spans: PublishSpan[]
  events: StreamEvent[]
} {
  const spans: PublishSpan[] = []
  const streams: StreamEvent[] = []
  for (const e of events) {
    if (e.type === 'realtime.published')
      spans.push({
        name: `publish ${e.data.channel}`,
        at: e.at,
        attributes: {
          'messaging.system': 'fw.realtime',
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'publish',
          'messaging.destination.name': e.data.channel,
          'messaging.message.id': e.data.id,
          'messaging.message.body.size': e.data.bytes,
          'fw.realtime.event': e.data.event,
          'fw.realtime.shared': e.data.shared,
        },
      })
    else if (e.type === 'realtime.subscribed')
      streams.push({
        name: e.type,
        at: e.at,
        attributes: {
          'messaging.destination.name': e.data.channel,
          'fw.realtime.resumed': e.data.resumed,
          'fw.realtime.replayed': e.data.replayed,
          'fw.realtime.reset': e.data.reset,
        },
      })
    else if (e.type === 'realtime.refused')
      streams.push({
        name: e.type,
        at: e.at,
        attributes: {
          'messaging.destination.name': e.data.channel,
          'fw.realtime.reason': e.data.reason,
        },
      })
  }
  return { spans, events: streams }
}
