// A request's trace, projected from its event log (the plugin's README has the span table): the
// server span is started when the request arrives (so its trace id can go into the request's log
// lines) and everything else is built after the response is sent, from the events' recorded times.
import { performance } from 'node:perf_hooks'
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type HrTime,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { MASK, type AnyEvent, type FwEvent, type Redaction, type RequestContext } from 'fw'
import type {} from 'fw/plugins/database'
import { methodAttribute } from './method.js'
import { operationOf } from './operation.js'

const propagator = new W3CTraceContextPropagator()
const headerGetter: TextMapGetter<RequestContext['headers']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
}

// `performance.timeOrigin` is a getter that asks the runtime each time: read once, split into
// whole seconds and the milliseconds after them, so that a request's times add up in small numbers.
const ORIGIN_SECONDS = Math.floor(performance.timeOrigin / 1000)
const ORIGIN_MS = performance.timeOrigin - ORIGIN_SECONDS * 1000

/**
 * A time relative to the request's start, as OpenTelemetry's `[seconds, nanoseconds]` since the
 * epoch. The SDK takes that form as it is; a number costs it a clock read per call (to tell an
 * epoch time from a `performance.now()` one).
 */
export function timeOf(ctx: RequestContext, at: number): HrTime {
  const ms = ORIGIN_MS + ctx.log.origin + at
  const seconds = Math.floor(ms / 1000)
  const nanos = Math.round((ms - seconds * 1000) * 1e6)
  return nanos < 1e9
    ? [ORIGIN_SECONDS + seconds, nanos]
    : [ORIGIN_SECONDS + seconds + 1, nanos - 1e9]
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '))
  } catch {
    return component
  }
}

// Each parameter costs a redaction check (≈ 0.7 µs): a hostile 16 kB query string of 4,000 would
// cost a millisecond. Those after the first hundred are left out of `url.query`.
const MAX_QUERY_PARAMS = 100

/**
 * The query string as `url.query`: as received (its first {@link MAX_QUERY_PARAMS} parameters),
 * except the value of each parameter that the kernel's redaction rule calls secret (by its name,
 * its innermost `[name]`, or its value), which becomes `***`. (The rule covers the parameters the
 * HTTP conventions name: `AWSAccessKeyId`, `Signature`, `sig`, `X-Goog-Signature`.)
 */
function redactedQuery(query: string, redaction: Redaction): string {
  return query
    .split('&', MAX_QUERY_PARAMS)
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq === -1) return pair
      const name = decoded(pair.slice(0, eq))
      const inner = /\[([^[\]]*)\]$/.exec(name)?.[1]
      const secret =
        redaction.isSecretKey(name) ||
        (inner !== undefined && redaction.isSecretKey(inner)) ||
        redaction.isSecretValue(decoded(pair.slice(eq + 1)))
      return secret ? `${pair.slice(0, eq)}=${MASK}` : pair
    })
    .join('&')
}

/** How requests are traced: the plugin's options and config, resolved at boot. */
export interface TraceSettings {
  /** A child span per phase. */
  readonly phaseSpans: boolean
  /** The methods recorded as they are; any other is `_OTHER`, and `HTTP` in the span's name. */
  readonly knownMethods: ReadonlySet<string>
}

/** The method in a span's name: itself when known, else `HTTP` (HTTP semantic conventions). */
function spanMethod(ctx: RequestContext, settings: TraceSettings): string {
  return settings.knownMethods.has(ctx.method) ? ctx.method : 'HTTP'
}

/**
 * Starts the request's server span, a child of the caller's trace when the request carries a valid
 * W3C `traceparent` (and `tracestate`). Its start time is the request's.
 */
export function startServerSpan(
  tracer: Tracer,
  ctx: RequestContext,
  settings: TraceSettings,
): Span {
  // Most requests carry no trace context: the propagator is asked only when one does.
  const parent: Context =
    ctx.headers.traceparent === undefined
      ? ROOT_CONTEXT
      : propagator.extract(ROOT_CONTEXT, ctx.headers, headerGetter)
  const host = ctx.headers.host ?? ''
  // `name:port`, `[v6]:port`, or either without the port: in `[v6]:port` the port follows the
  // bracket, a name or a v4 address has one colon at most. (`indexOf`, not `lastIndexOf`: V8 runs
  // the latter in the runtime, ≈ 35 ns a call more.)
  const colon = host.charCodeAt(0) === 0x5b ? host.indexOf(']:') + 1 : host.indexOf(':')
  const address = colon > 0 ? host.slice(0, colon) : host
  const port = colon > 0 ? host.slice(colon + 1) : ''
  const method = methodAttribute(ctx.method, settings.knownMethods)
  const attributes: Attributes = {
    'http.request.method': method,
    'url.path': ctx.path,
    'url.scheme': ctx.secure ? 'https' : 'http',
    // The kernel's answer: the socket's address, or X-Forwarded-For's first with `http.trust_proxy`.
    'client.address': ctx.ip,
  }
  if (method !== ctx.method) attributes['http.request.method_original'] = ctx.method
  if (address) attributes['server.address'] = address
  // A port that is not a number (a hostile `Host`) is left out rather than recorded as NaN.
  if (/^\d{1,5}$/.test(port)) attributes['server.port'] = Number(port)
  const agent = ctx.headers['user-agent']
  if (agent !== undefined) attributes['user_agent.original'] = agent
  return tracer.startSpan(
    spanMethod(ctx, settings),
    { kind: SpanKind.SERVER, startTime: timeOf(ctx, 0), attributes },
    parent,
  )
}

interface Interval {
  readonly span: Span
  readonly start: number
  readonly end: number
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
  const phases: Interval[] = []
  let route: string | undefined
  let thrown = false
  for (const e of events) {
    if (e.type === 'route.matched') route = `/${e.data.path}`
    if (e.type !== 'phase.completed' || !settings.phaseSpans) continue
    const { name, start, duration } = e.data
    parentContext ??= trace.setSpan(ROOT_CONTEXT, server)
    const span = tracer.startSpan(name, { startTime: timeOf(ctx, start) }, parentContext)
    span.end(timeOf(ctx, start + duration))
    phases.push({ span, start, end: start + duration })
  }
  for (const e of events) {
    if (e.type === 'query.executed') statementSpan(tracer, ctx, e, server, phases)
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
  server: Span,
  phases: readonly Interval[],
): void {
  const start = e.at - e.data.duration
  let parent = server
  let width = Number.POSITIVE_INFINITY
  for (const p of phases) {
    if (p.start <= start && e.at <= p.end + 0.001 && p.end - p.start < width) {
      parent = p.span
      width = p.end - p.start
    }
  }
  const operation = operationOf(e.data.sql)
  const span = tracer.startSpan(
    operation,
    {
      kind: SpanKind.CLIENT,
      startTime: timeOf(ctx, start),
      attributes: {
        'db.system': 'postgresql',
        'db.operation.name': operation,
        // The statement with its `?` placeholders: the values never leave the process.
        'db.query.text': e.data.sql,
        ...(e.data.rows === undefined ? {} : { 'db.response.returned_rows': e.data.rows }),
      },
    },
    trace.setSpan(ROOT_CONTEXT, parent),
  )
  if (e.data.failed) span.setStatus({ code: SpanStatusCode.ERROR })
  span.end(timeOf(ctx, e.at))
}
