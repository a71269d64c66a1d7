// A request's trace through the OpenTelemetry SDK (the `tracerProvider` path; span-records.ts is
// the cheaper `exporter` path, with the same spans): the server span is started when the request
// arrives (so its trace id can go into the request's log lines) and everything else is built after
// the response is sent, from the events' recorded times.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api'
import type { AnyEvent, FwEvent, RequestContext } from 'fw'
import { operationOf } from './operation.js'
import type { Tracing } from './types.js'
import {
  callerContext,
  jobOf,
  redactedQuery,
  rootSpanOf,
  spanMethod,
  statementAttributes,
  enclosingPhase,
  timeOf,
  type TraceSettings,
} from './span-attributes.js'
import { realtimeParts } from './realtime-spans.js'

/**
 * The `tracerProvider` path: each request's spans made with the SDK's tracer, which hands them to
 * its span processors (flushed and shut down by the app, which owns the provider).
 */
export function createSdkTracing(
  tracer: Tracer,
  provider: TracerProvider,
  settings: TraceSettings,
): Tracing {
  return {
    start(ctx) {
      const span = startServerSpan(tracer, ctx, settings)
      // A span the sampler left out records nothing: no projection to run for it.
      if (span.isRecording()) ctx.state.telemetrySpan = span
      return span.spanContext()
    },
    finish(ctx, status, end) {
      const span = ctx.state.telemetrySpan
      if (span !== undefined) finishTrace(tracer, span, ctx, status, end, settings)
    },
    // An SDK provider (BasicTracerProvider, NodeTracerProvider) has forceFlush; the API's has not.
    flush: async () => (provider as { forceFlush?: () => Promise<void> }).forceFlush?.(),
    shutdown: async () => {},
    stats: () => undefined,
  }
}

/**
 * Starts the request's server span (a job run's CONSUMER span), a child of the caller's trace when
 * the context carries a valid W3C `traceparent` (and `tracestate`). Its start time is the
 * context's.
 */
export function startServerSpan(
  tracer: Tracer,
  ctx: RequestContext,
  settings: TraceSettings,
): Span {
  const { name, kind, attributes } = rootSpanOf(ctx, settings)
  return tracer.startSpan(name, { kind, startTime: timeOf(ctx, 0), attributes }, callerContext(ctx))
}

/**
 * Ends the server span of a request whose response was sent: its route and status, a child span
 * per phase (unless `settings.phaseSpans` is false) and per database statement (the innermost
 * phase that contains a statement is its parent), errors marked. `end` is when the response left,
 * relative to the request's start.
 */
export function finishTrace(
  tracer: Tracer,
  server: Span,
  ctx: RequestContext,
  status: number,
  end: number,
  settings: TraceSettings,
): void {
  // Sampled out (the SDK's sampler said no): nothing to record, no child to make.
  if (!server.isRecording()) return server.end()
  // Here rather than at the span's start: masking costs per parameter, and a sampled-out request
  // should not pay it.
  if (ctx.querystring !== '')
    server.setAttribute('url.query', redactedQuery(ctx.querystring, ctx.kernel.redaction))
  const events: readonly AnyEvent[] = ctx.log.all()
  let parentContext: Context | undefined
  const phases: Span[] = []
  let route: string | undefined
  let thrown = false
  for (const e of events) {
    if (e.type === 'route.matched') route = `/${e.data.path}`
    if (e.type !== 'phase.completed' || !settings.phaseSpans) continue
    const { name, start, duration } = e.data
    parentContext ??= trace.setSpan(ROOT_CONTEXT, server)
    const span = tracer.startSpan(name, { startTime: timeOf(ctx, start) }, parentContext)
    span.end(timeOf(ctx, start + duration))
    phases.push(span)
  }
  for (const e of events) {
    if (e.type === 'query.executed') {
      const k = settings.phaseSpans ? enclosingPhase(events, e) : -1
      statementSpan(tracer, ctx, e, k === -1 ? server : phases[k]!)
    }
    if (e.type === 'exception.raised') {
      server.addEvent(
        'exception',
        { 'exception.type': e.data.name, 'exception.message': e.data.message },
        timeOf(ctx, e.at),
      )
      server.setStatus({ code: SpanStatusCode.ERROR, message: e.data.message })
      thrown = true
    }
  }
  const realtime = realtimeParts(events)
  for (const p of realtime.spans)
    tracer
      .startSpan(
        p.name,
        { kind: SpanKind.PRODUCER, startTime: timeOf(ctx, p.at), attributes: p.attributes },
        trace.setSpan(ROOT_CONTEXT, server),
      )
      .end(timeOf(ctx, p.at))
  for (const s of realtime.events) server.addEvent(s.name, s.attributes, timeOf(ctx, s.at))
  // A job run: its outcome is its `exception.raised` event, it has no HTTP status.
  if (jobOf(ctx) !== undefined) return server.end(timeOf(ctx, end))
  if (route !== undefined) {
    server.setAttribute('http.route', route)
    server.updateName(`${spanMethod(ctx, settings)} ${route}`)
  }
  server.setAttribute('http.response.status_code', status)
  if (status >= 500) {
    server.setAttribute('error.type', String(status))
    if (!thrown) server.setStatus({ code: SpanStatusCode.ERROR })
  }
  server.end(timeOf(ctx, end))
}

function statementSpan(
  tracer: Tracer,
  ctx: RequestContext,
  e: FwEvent<'query.executed'>,
  parent: Span,
): void {
  const operation = operationOf(e.data.sql)
  const span = tracer.startSpan(
    operation,
    {
      kind: SpanKind.CLIENT,
      startTime: timeOf(ctx, e.at - e.data.duration),
      attributes: statementAttributes(e, operation),
    },
    trace.setSpan(ROOT_CONTEXT, parent),
  )
  if (e.data.failed) span.setStatus({ code: SpanStatusCode.ERROR })
  span.end(timeOf(ctx, e.at))
}
