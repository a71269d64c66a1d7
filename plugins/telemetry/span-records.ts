// fw's own span records (the `exporter` path): a request's trace projected from its event log after
// the response, as the read-only span objects OpenTelemetry's exporters take (the SDK's
// `ReadableSpan` shape), without the SDK's live `Span` objects. The spans are the SDK path's
// (trace.ts): same names, kinds, attributes, parents, status, events and times, from the same
// helpers (span-attributes.ts); test/plugins/telemetry/span-records.test.ts runs both on the same
// requests and compares them.
import {
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api'
import type { ExportResult, InstrumentationScope } from '@opentelemetry/core'
import type { RequestContext } from 'fw'
import { operationOf } from './operation.js'
import {
  redactedQuery,
  rootSpanOf,
  statementAttributes,
  enclosingPhase,
  timeOf,
  type TraceSettings,
} from './span-attributes.js'
import { realtimeParts } from './realtime-spans.js'
import { newSpanId } from './trace-ids.js'

/** The entity the spans describe (OpenTelemetry's resource): `service.name` and the like. */
export interface SpanResource {
  readonly attributes: Attributes
  readonly schemaUrl?: string | undefined
}

/** An event on a span (`exception`), at a time. */
export interface SpanEventRecord {
  readonly time: HrTime
  readonly name: string
  readonly attributes?: Attributes
  readonly droppedAttributesCount?: number
}

/**
 * A finished span as exporters read it: the fields of the SDK's `ReadableSpan`, so that any
 * OpenTelemetry `SpanExporter` (OTLP, console, in-memory, Zipkin…) takes it. Read-only: records
 * share their empty attribute, event and link lists.
 */
export interface SpanRecord {
  readonly name: string
  readonly kind: SpanKind
  spanContext(): SpanContext
  readonly parentSpanContext?: SpanContext | undefined
  readonly startTime: HrTime
  readonly endTime: HrTime
  readonly status: SpanStatus
  readonly attributes: Attributes
  readonly links: Link[]
  readonly events: SpanEventRecord[]
  readonly duration: HrTime
  readonly ended: boolean
  readonly resource: SpanResource
  readonly instrumentationScope: InstrumentationScope
  readonly droppedAttributesCount: number
  readonly droppedEventsCount: number
  readonly droppedLinksCount: number
}

/**
 * Where span records go: an OpenTelemetry `SpanExporter` (`@opentelemetry/sdk-trace-base`'s
 * `ConsoleSpanExporter`, `InMemorySpanExporter`, an OTLP exporter…) fits as it is.
 *
 * @example
 * import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
 * kernel.register(telemetry, { exporter: new OTLPTraceExporter() })
 */
export interface SpanRecordExporter {
  /** Exports a batch, then calls `resultCallback` with `{ code: 0 }` (success) or a failure. */
  export(spans: SpanRecord[], resultCallback: (result: ExportResult) => void): void
  /** Exports what it still holds and stops (called when the kernel closes). */
  shutdown(): Promise<void>
  /** Exports what it still holds. */
  forceFlush?(): Promise<void>
}

/** What every record of an app carries: its resource and the instrumentation scope (`fw`). */
export interface RecordOrigin {
  readonly resource: SpanResource
  readonly scope: InstrumentationScope
}

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET })
const ERROR: SpanStatus = Object.freeze({ code: SpanStatusCode.ERROR })
const NO_ATTRIBUTES: Attributes = Object.freeze({})
const NO_EVENTS = Object.freeze([]) as unknown as SpanEventRecord[]
const NO_LINKS = Object.freeze([]) as unknown as Link[]

/**
 * One finished span. Its own fields are set in the constructor, in one order (one hidden class);
 * what every span has alike (no links, nothing dropped) and what is worked out from the others
 * (the duration) are getters, as on the SDK's spans: less to allocate per span.
 */
class Record implements SpanRecord {
  readonly name: string
  readonly kind: SpanKind
  readonly parentSpanContext: SpanContext | undefined
  readonly startTime: HrTime
  readonly endTime: HrTime
  readonly status: SpanStatus
  readonly attributes: Attributes
  readonly events: SpanEventRecord[]
  readonly resource: SpanResource
  readonly instrumentationScope: InstrumentationScope
  readonly #context: SpanContext

  constructor(
    name: string,
    kind: SpanKind,
    context: SpanContext,
    parent: SpanContext | undefined,
    start: HrTime,
    end: HrTime,
    attributes: Attributes,
    status: SpanStatus,
    events: SpanEventRecord[],
    origin: RecordOrigin,
  ) {
    this.name = name
    this.kind = kind
    this.#context = context
    this.parentSpanContext = parent
    this.startTime = start
    // As the SDK: an end before the start (never from the log) ends at the start.
    this.endTime = end[0] < start[0] || (end[0] === start[0] && end[1] < start[1]) ? start : end
    this.status = status
    this.attributes = attributes
    this.events = events
    this.resource = origin.resource
    this.instrumentationScope = origin.scope
  }

  spanContext(): SpanContext {
    return this.#context
  }

  /** `endTime - startTime`, as the SDK's `hrTimeDuration`. */
  get duration(): HrTime {
    const seconds = this.endTime[0] - this.startTime[0]
    const nanos = this.endTime[1] - this.startTime[1]
    return nanos < 0 ? [seconds - 1, nanos + 1e9] : [seconds, nanos]
  }

  get links(): Link[] {
    return NO_LINKS
  }

  get ended(): boolean {
    return true
  }

  get droppedAttributesCount(): number {
    return 0
  }

  get droppedEventsCount(): number {
    return 0
  }

  get droppedLinksCount(): number {
    return 0
  }
}

/** A child span's context: the trace's id, flags and state, a new span id. */
function childOf(server: SpanContext): SpanContext {
  return {
    traceId: server.traceId,
    spanId: newSpanId(),
    traceFlags: server.traceFlags,
    traceState: server.traceState,
  }
}

/** A span per `phase.completed` event (when `phaseSpans`), in order; the matched route, if any. */
function pushPhaseSpans(
  out: SpanRecord[],
  ctx: RequestContext,
  server: SpanContext,
  settings: TraceSettings,
  origin: RecordOrigin,
): string | undefined {
  let route: string | undefined
  for (const e of ctx.log.all()) {
    if (e.type === 'route.matched') route = `/${e.data.path}`
    if (e.type !== 'phase.completed' || !settings.phaseSpans) continue
    const { name, start, duration } = e.data
    out.push(
      new Record(
        name,
        SpanKind.INTERNAL,
        childOf(server),
        server,
        timeOf(ctx, start),
        timeOf(ctx, start + duration),
        NO_ATTRIBUTES,
        UNSET,
        NO_EVENTS,
        origin,
      ),
    )
  }
  return route
}

/**
 * Appends a PRODUCER span per publication of the request to `out`; answers `serverEvents` with an
 * event per stream it opened or was refused (realtime-spans.ts).
 */
function pushRealtime(
  out: SpanRecord[],
  ctx: RequestContext,
  server: SpanContext,
  serverEvents: SpanEventRecord[],
  origin: RecordOrigin,
): SpanEventRecord[] {
  const realtime = realtimeParts(ctx.log.all())
  for (const p of realtime.spans) {
    const at = timeOf(ctx, p.at)
    out.push(
      new Record(
        p.name,
        SpanKind.PRODUCER,
        childOf(server),
        server,
        at,
        at,
        p.attributes,
        UNSET,
        NO_EVENTS,
        origin,
      ),
    )
  }
  if (realtime.events.length === 0) return serverEvents
  const events = serverEvents === NO_EVENTS ? [] : serverEvents
  for (const s of realtime.events)
    events.push({
      name: s.name,
      attributes: s.attributes,
      time: timeOf(ctx, s.at),
      droppedAttributesCount: 0,
    })
  return events
}

/**
 * Appends to `out` the spans of a request whose response was sent, children first and the server
 * span last (the order in which the SDK path ends them): a span per phase (unless
 * `settings.phaseSpans` is false) and per database statement under the server span `server`
 * (started on arrival, a child of `parent`, the caller's span, when there is one). `end` is when
 * the response left, relative to the request's start.
 */
export function projectRecords(
  out: SpanRecord[],
  ctx: RequestContext,
  server: SpanContext,
  parent: SpanContext | undefined,
  status: number,
  end: number,
  settings: TraceSettings,
  origin: RecordOrigin,
): void {
  const events = ctx.log.all()
  // The phases' spans are `out[phases + k]`, k counting the `phase.completed` events.
  const phases = out.length
  const route = pushPhaseSpans(out, ctx, server, settings, origin)
  let serverStatus = UNSET
  let serverEvents = NO_EVENTS
  for (const e of events) {
    if (e.type === 'query.executed') {
      const operation = operationOf(e.data.sql)
      const k = settings.phaseSpans ? enclosingPhase(events, e) : -1
      out.push(
        new Record(
          operation,
          SpanKind.CLIENT,
          childOf(server),
          k === -1 ? server : out[phases + k]!.spanContext(),
          timeOf(ctx, e.at - e.data.duration),
          timeOf(ctx, e.at),
          statementAttributes(e, operation),
          e.data.failed ? ERROR : UNSET,
          NO_EVENTS,
          origin,
        ),
      )
    } else if (e.type === 'exception.raised') {
      if (serverEvents === NO_EVENTS) serverEvents = []
      serverEvents.push({
        name: 'exception',
        attributes: { 'exception.type': e.data.name, 'exception.message': e.data.message },
        time: timeOf(ctx, e.at),
        droppedAttributesCount: 0,
      })
      serverStatus = { code: SpanStatusCode.ERROR, message: e.data.message }
    }
  }
  serverEvents = pushRealtime(out, ctx, server, serverEvents, origin)
  const root = rootSpanOf(ctx, settings)
  const attributes = root.attributes
  let name = root.name
  // A job run's outcome is its `exception.raised` event: it has no HTTP attributes.
  if (!root.job) {
    if (ctx.querystring !== '')
      attributes['url.query'] = redactedQuery(ctx.querystring, ctx.kernel.redaction)
    if (route !== undefined) {
      attributes['http.route'] = route
      name = `${root.name} ${route}`
    }
    attributes['http.response.status_code'] = status
    if (status >= 500) {
      attributes['error.type'] = String(status)
      if (serverStatus === UNSET) serverStatus = ERROR
    }
  }
  out.push(
    new Record(
      name,
      root.kind,
      server,
      parent,
      timeOf(ctx, 0),
      timeOf(ctx, end),
      attributes,
      serverStatus,
      serverEvents,
      origin,
    ),
  )
}
