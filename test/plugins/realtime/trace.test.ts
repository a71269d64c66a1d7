// The realtime plugin's events in traces: a publication is a PRODUCER span `publish <channel>`
// under the request's server span, a stream opened or refused an event on it. Both ways of
// tracing (the SDK's spans and fw's own records) run on the same requests and must agree.
import { SpanKind } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, json, silentLogger, type Kernel } from 'fw'
import realtime from 'fw/plugins/realtime'
import { traceBothPaths } from '../telemetry/both-paths.js'
import { openEvents } from './sse-client.js'

const test = suite<{ kernel?: Kernel }>('realtime: traces')

test.after(async ({ kernel }) => {
  await kernel?.close(1000, 0)
})

/** What the comparison keeps of a span: no ids, parents by name. */
function shape(spans: readonly ReadableSpan[]) {
  const names = new Map(spans.map((s) => [s.spanContext().spanId, s.name]))
  return spans.map((s) => ({
    name: s.name,
    kind: s.kind,
    parent: s.parentSpanContext === undefined ? undefined : names.get(s.parentSpanContext.spanId),
    attributes: s.attributes,
    events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    startTime: s.startTime,
    endTime: s.endTime,
  }))
}

test('a publication is a PRODUCER span, a stream an event, alike on both paths', async (context) => {
  const kernel = (context.kernel = createKernel({
    logger: silentLogger,
    config: { development: false },
  }))
  kernel.register(realtime, { channels: { news: { authorize: 'public' } } })
  kernel.router.get('announce', async (ctx) =>
    json(await ctx.kernel.plugin('realtime').publish('news', 'posted', { title: 'hi' }, ctx)),
  )
  const traces = traceBothPaths(kernel, {
    service: 'realtime',
    phaseSpans: false,
    knownMethods: ['GET'],
  })
  const { url } = await kernel.listen(0, '127.0.0.1')
  const stream = await openEvents(`${url}/events/news`)
  const published = (await (await fetch(`${url}/announce`)).json()) as { id: string }
  await stream.waitFor(1)
  stream.close()
  assert.is((await fetch(`${url}/events/nowhere`)).status, 404)
  await traces.settle()
  const sdkSpans = shape(traces.sdkSpans())
  const recordSpans = shape(traces.recordSpans())
  assert.equal(recordSpans, sdkSpans)

  const producer = recordSpans.find((s) => s.kind === SpanKind.PRODUCER)
  assert.equal(producer, {
    ...producer!,
    name: 'publish news',
    parent: 'GET /announce',
    attributes: {
      'messaging.system': 'fw.realtime',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': 'news',
      'messaging.message.id': published.id,
      'messaging.message.body.size': JSON.stringify({ title: 'hi' }).length,
      'fw.realtime.event': 'posted',
      'fw.realtime.shared': false,
    },
  })
  const streamEvents = recordSpans
    .flatMap((s) => s.events)
    .filter((e) => e.name.startsWith('realtime.'))
  assert.equal(streamEvents, [
    {
      name: 'realtime.subscribed',
      attributes: {
        'messaging.destination.name': 'news',
        'fw.realtime.resumed': false,
        'fw.realtime.replayed': 0,
        'fw.realtime.reset': false,
      },
    },
    {
      name: 'realtime.refused',
      attributes: { 'messaging.destination.name': 'nowhere', 'fw.realtime.reason': 'unknown' },
    },
  ])
})

test.run()
