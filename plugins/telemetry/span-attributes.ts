// What a request's spans say, shared by both ways of tracing (the SDK's spans, trace.ts; fw's own
// records, span-records.ts), so that the two cannot drift: times, names, attributes, the caller's
// trace context. The span table is in the plugin's README.
import { performance } from 'node:perf_hooks'
import {
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type HrTime,
  type SpanContext,
  type TextMapGetter,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { maskQuery, type AnyEvent, type FwEvent, type Redaction, type RequestContext } from 'fw'
import { methodAttribute } from './method.js'

/** How requests are traced: the plugin's options and config, resolved at boot. */
export interface TraceSettings {
  /** A child span per phase. */
  readonly phaseSpans: boolean
  /** The methods recorded as they are; any other is `_OTHER`, and `HTTP` in the span's name. */
  readonly knownMethods: ReadonlySet<string>
}

const propagator = new W3CTraceContextPropagator()
const headerGetter: TextMapGetter<RequestContext['headers']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
}

/**
 * The caller's trace context as a `Context` for the SDK: from a valid W3C `traceparent` (and
 * `tracestate`), else the root context (an invalid header starts a new trace).
 */
export function callerContext(ctx: RequestContext): Context {
  // Most requests carry no trace context: the propagator is asked only when one does.
  return ctx.headers.traceparent === undefined
    ? ROOT_CONTEXT
    : propagator.extract(ROOT_CONTEXT, ctx.headers, headerGetter)
}

/** The caller's span context (remote), or undefined: the same reading as {@link callerContext}. */
export function callerSpanContext(ctx: RequestContext): SpanContext | undefined {
  return ctx.headers.traceparent === undefined
    ? undefined
    : trace.getSpanContext(callerContext(ctx))
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

// Each parameter costs a redaction check (≈ 0.7 µs): a hostile 16 kB query string of 4,000 would
// cost a millisecond. Those after the first hundred are left out of `url.query`.
const MAX_QUERY_PARAMS = 100

/**
 * The query string as `url.query`: as received (its first {@link MAX_QUERY_PARAMS} parameters),
 * except the value of each parameter that the kernel's redaction rule calls secret (by its name,
 * its innermost `[name]`, or its value), which becomes `***`. (The rule covers the parameters the
 * HTTP conventions name: `AWSAccessKeyId`, `Signature`, `sig`, `X-Goog-Signature`.)
 */
export function redactedQuery(query: string, redaction: Redaction): string {
  return maskQuery(query, redaction, MAX_QUERY_PARAMS)
}

/** The method in a span's name: itself when known, else `HTTP` (HTTP semantic conventions). */
export function spanMethod(ctx: RequestContext, settings: TraceSettings): string {
  return settings.knownMethods.has(ctx.method) ? ctx.method : 'HTTP'
}

/**
 * The job a context runs, or undefined for a request: the jobs plugin runs each job in a context
 * of its own, method `JOB`, path `/_jobs/<name>`.
 */
export function jobOf(ctx: RequestContext): string | undefined {
  return ctx.method === 'JOB' && ctx.path.startsWith('/_jobs/') ? ctx.path.slice(7) : undefined
}

/**
 * A job run's span attributes (OpenTelemetry's messaging conventions: the `process` of a message
 * from the queue named after the job), with its id and attempt from the run's `job.started`.
 */
export function jobAttributes(ctx: RequestContext, job: string): Attributes {
  const attributes: Attributes = {
    'messaging.system': 'fw.jobs',
    'messaging.operation.type': 'process',
    'messaging.destination.name': job,
  }
  for (const e of ctx.log.all()) {
    // The jobs plugin declares the event: read loosely, as this plugin does not depend on it.
    if ((e.type as string) !== 'job.started') continue
    const started = e.data as { id?: unknown; attempt?: unknown }
    if (typeof started.id === 'string') attributes['messaging.message.id'] = started.id
    if (typeof started.attempt === 'number') attributes['fw.job.attempt'] = started.attempt
    break
  }
  return attributes
}

/** The root span of a context: a request's (SERVER, `GET`) or a job run's (CONSUMER). */
export function rootSpanOf(
  ctx: RequestContext,
  settings: TraceSettings,
): { name: string; kind: SpanKind; attributes: Attributes; job: boolean } {
  const job = jobOf(ctx)
  return job === undefined
    ? {
        name: spanMethod(ctx, settings),
        kind: SpanKind.SERVER,
        attributes: requestAttributes(ctx, settings),
        job: false,
      }
    : {
        name: `process ${job}`,
        kind: SpanKind.CONSUMER,
        attributes: jobAttributes(ctx, job),
        job: true,
      }
}

/**
 * The server span's attributes known from the request alone (the route, the status and the query
 * string are added after the response).
 */
export function requestAttributes(ctx: RequestContext, settings: TraceSettings): Attributes {
  const method = methodAttribute(ctx.method, settings.knownMethods)
  const attributes: Attributes = {
    'http.request.method': method,
    'url.path': ctx.path,
    'url.scheme': ctx.secure ? 'https' : 'http',
    // The kernel's answer: the socket's address, or X-Forwarded-For's first with `http.trust_proxy`.
    'client.address': ctx.ip,
  }
  if (method !== ctx.method) attributes['http.request.method_original'] = ctx.method
  const host = ctx.headers.host ?? ''
  // Most requests name the same host: its parts are worked out once for a run of them.
  if (host !== lastHost) {
    lastHost = host
    // `name:port`, `[v6]:port`, or either without the port: in `[v6]:port` the port follows the
    // bracket, a name or a v4 address has one colon at most. (`indexOf`, not `lastIndexOf`: V8
    // runs the latter in the runtime, ≈ 35 ns a call more.)
    const colon = host.charCodeAt(0) === 0x5b ? host.indexOf(']:') + 1 : host.indexOf(':')
    const port = colon > 0 ? host.slice(colon + 1) : ''
    hostAddress = colon > 0 ? host.slice(0, colon) : host
    // A port that is not a number (a hostile `Host`) is left out rather than recorded as NaN.
    hostPort = /^\d{1,5}$/.test(port) ? Number(port) : undefined
  }
  if (hostAddress) attributes['server.address'] = hostAddress
  if (hostPort !== undefined) attributes['server.port'] = hostPort
  const agent = ctx.headers['user-agent']
  if (agent !== undefined) attributes['user_agent.original'] = agent
  return attributes
}

let lastHost = ''
let hostAddress = ''
let hostPort: number | undefined

/** A statement's span attributes (CLIENT, named after its operation). */
export function statementAttributes(e: FwEvent<'query.executed'>, operation: string): Attributes {
  const attributes: Attributes = {
    'db.system': 'postgresql',
    'db.operation.name': operation,
    // The statement with its `?` placeholders: the values never leave the process.
    'db.query.text': e.data.sql,
  }
  if (e.data.rows !== undefined) attributes['db.response.returned_rows'] = e.data.rows
  return attributes
}

/**
 * Where a statement's span hangs: the index, among the request's `phase.completed` events, of the
 * shortest phase that contains the statement (a microsecond of slack at its end, the times being
 * rounded), or -1 for none (the server span).
 */
export function enclosingPhase(events: readonly AnyEvent[], e: FwEvent<'query.executed'>): number {
  const start = e.at - e.data.duration
  let found = -1
  let width = Number.POSITIVE_INFINITY
  let k = 0
  for (const p of events) {
    if (p.type !== 'phase.completed') continue
    const end = p.data.start + p.data.duration
    if (p.data.start <= start && e.at <= end + 0.001 && p.data.duration < width) {
      found = k
      width = p.data.duration
    }
    k++
  }
  return found
}
