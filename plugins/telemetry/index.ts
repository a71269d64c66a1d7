// Observability in production (issue "the request event log as OpenTelemetry traces and
// Prometheus metrics"): a trace per request and Prometheus metrics, both projections of the
// request's event log rather than monkey-patched instrumentation.
import { timingSafeEqual } from 'node:crypto'
import { trace, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api'
import { definePlugin, HttpError, text, type Kernel, type Reply, type RequestContext } from 'fw'
import type {} from 'fw/plugins/health'
import type {} from 'fw/plugins/logging'
import { KNOWN_METHODS } from './method.js'
import { createMetrics, observeRequest, type Metrics } from './metrics.js'
// The trace projection (and OpenTelemetry's core package it uses) loads at boot, and only when a
// tracer provider is there: an app that traces nothing does not pay its import.
import type * as TraceProjection from './trace.js'

/** Options of the telemetry plugin (code-level choices; the metrics switch and token are config). */
export interface TelemetryOptions {
  /**
   * Where spans go. Default: the global provider (`trace.setGlobalTracerProvider`, which an
   * OpenTelemetry SDK registers). When neither is there at boot, requests are not traced and the
   * plugin adds nothing to them.
   */
  tracerProvider?: TracerProvider | undefined
  /**
   * A child span per phase of the request (`routing`, `middleware`, `action`…). Default `true`.
   * `false` keeps the server span and the statements' spans only: each span costs the SDK about
   * a microsecond and its share of garbage collection (bench/README.md, `telemetry.ts`).
   */
  phaseSpans?: boolean
  /** The metrics route's path (default `'metrics'`). */
  metricsPath?: string
  /** Prepended to every metric name (default `''`: `http_server_request_duration_seconds`). */
  metricsPrefix?: string
}

/** What `kernel.plugin('telemetry')` returns. */
export interface TelemetryApi {
  /** True when requests are traced (a tracer provider was there at boot). */
  readonly tracing: boolean
  /** The Prometheus text of the metrics now; undefined when metrics are off. */
  metricsText(): Promise<string | undefined>
}

declare module 'fw' {
  interface PluginApis {
    telemetry: TelemetryApi
  }
  interface ContextState {
    /** The request's server span while it is recorded (the telemetry plugin's). */
    telemetrySpan?: Span
    /** True once the request is counted in flight (the telemetry plugin's). */
    telemetryCounted?: true
  }
  interface FwConfig {
    telemetry: {
      /** Serve Prometheus metrics at `GET /metrics` (and count them per request). */
      metrics: boolean
      /** A bearer token that may read `/metrics` (a secret: masked wherever config is shown). */
      metrics_token: string | undefined
      /** The lowest usertype a signed-in user needs to read `/metrics` (default 90). */
      metrics_min_usertype: number
      /**
       * The request methods traced and counted as they are; any other is `_OTHER` (HTTP semantic
       * conventions; env `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`, a full replacement). Default:
       * RFC 9110's, PATCH and QUERY.
       */
      known_methods: string[]
    }
  }
}

/** True when a real tracer provider is registered (the API's own answers a no-op tracer). */
function hasProvider(provider: TracerProvider): boolean {
  const delegate = (provider as { getDelegate?: () => TracerProvider }).getDelegate?.() ?? provider
  return delegate.constructor.name !== 'NoopTracerProvider'
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Who may read the metrics: the configured bearer token, or a signed-in user at or above the
 * usertype floor. Anyone else: 401 (nobody known) or 403.
 */
async function allowed(kernel: Kernel, ctx: RequestContext): Promise<void> {
  const { metrics_token: token, metrics_min_usertype: floor } = kernel.config.telemetry
  const bearer = /^Bearer\s+(.+)$/i.exec(ctx.header('authorization') ?? '')?.[1]?.trim()
  if (token !== undefined && token !== '' && bearer !== undefined && sameSecret(bearer, token))
    return
  // Any other bearer may be a user's token: the auth plugin, when registered, resolves it.
  const who = await ctx.identity()
  if (who?.id === undefined)
    throw new HttpError(
      401,
      { error: 'unauthenticated', message: 'The metrics need a token or a signed-in user.' },
      { headers: { 'www-authenticate': 'Bearer' } },
    )
  if ((who.usertype ?? 0) < floor)
    throw new HttpError(403, { error: 'forbidden', message: 'The metrics need a higher usertype.' })
}

/**
 * The telemetry plugin. Tracing: with a tracer provider at boot, each request gets a server span
 * (started on arrival, its trace id in the request's log lines) and, after the response is sent,
 * child spans for its phases and statements, built from the event log. Metrics (config
 * `telemetry.metrics`): Prometheus text at `GET /metrics`, for the token or a user at the floor.
 *
 * @example
 * // instrumentation.ts, loaded first: the app brings the SDK and its exporter.
 * const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] })
 * trace.setGlobalTracerProvider(provider)
 * // app.ts
 * kernel.register(telemetry)
 */
export default definePlugin<TelemetryOptions | undefined, TelemetryApi>({
  name: 'telemetry',
  // database: the statement spans read its `query.executed` events.
  optionalDependsOn: ['logging', 'health', 'database'],
  config: {
    defaults: {
      telemetry: {
        metrics: false,
        metrics_token: undefined,
        metrics_min_usertype: 90,
        known_methods: [...KNOWN_METHODS],
      },
    },
    schema: {
      'telemetry.metrics': 'boolean',
      'telemetry.metrics_token': 'string?',
      'telemetry.metrics_min_usertype': 'integer',
      'telemetry.known_methods': 'string[]',
    },
    env: {
      'telemetry.metrics': 'FW_METRICS',
      'telemetry.metrics_token': 'FW_METRICS_TOKEN',
      // The name the HTTP semantic conventions give it.
      'telemetry.known_methods': 'OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS',
    },
  },
  setup(kernel, options = {}) {
    const provider = options.tracerProvider ?? trace.getTracerProvider()
    const tracer: Tracer | undefined = hasProvider(provider)
      ? provider.getTracer('fw', '0.1.0')
      : undefined
    const metricsOn = kernel.config.telemetry.metrics
    const knownMethods: ReadonlySet<string> = new Set(kernel.config.telemetry.known_methods)
    const settings: TraceProjection.TraceSettings = {
      phaseSpans: options.phaseSpans ?? true,
      knownMethods,
    }
    let metrics: Metrics | undefined
    const api: TelemetryApi = {
      tracing: tracer !== undefined,
      async metricsText() {
        if (metrics === undefined) return undefined
        if (kernel.hasPlugin('health')) {
          const report = await kernel.plugin('health').run()
          for (const [check, result] of Object.entries(report.checks))
            metrics.health.set(
              { check },
              ['ok', 'pass', 'warn'].includes(String(result.status)) ? 1 : 0,
            )
        }
        return metrics.registry.metrics()
      },
    }
    // Nothing per request unless a provider or the metrics ask for it.
    if (tracer === undefined && !metricsOn) return api
    let traced: typeof TraceProjection | undefined
    kernel.hooks.boot.tapPromise('telemetry', async () => {
      if (tracer !== undefined) traced = await import('./trace.js')
      if (metricsOn) metrics = await createMetrics(options.metricsPrefix ?? '')
    })

    // Requests answered in this turn of the event loop, projected together once their responses
    // are written (one `setImmediate` per turn, not one per request).
    let pending: Array<{ ctx: RequestContext; status: number; end: number }> = []
    const project = () => {
      const done = pending
      pending = []
      for (const { ctx, status, end } of done) {
        try {
          const span = ctx.state.telemetrySpan
          if (span !== undefined) traced!.finishTrace(tracer!, span, ctx, status, end, settings)
          if (metrics !== undefined) {
            if (ctx.state.telemetryCounted === true) metrics.inFlight.dec()
            observeRequest(metrics, ctx, status, end, knownMethods)
          }
        } catch (error) {
          // An exporter's or SDK's failure is reported, never thrown out of the event loop.
          kernel.logger.error('telemetry: projecting a request failed', { error, path: ctx.path })
        }
      }
    }
    // What is still waiting is projected before the app stops (the app's SDK shutdown, after,
    // exports it).
    kernel.hooks.shutdown.tap('telemetry', () => project())
    kernel.hooks.request.tap({ name: 'telemetry', stage: -2000 }, (ctx) => {
      if (traced !== undefined) {
        const span = traced.startServerSpan(tracer!, ctx, settings)
        const { traceId, spanId } = span.spanContext()
        const fields = ctx.state.logFields
        ctx.state.logFields =
          fields === undefined
            ? { trace_id: traceId, span_id: spanId }
            : { ...fields, trace_id: traceId, span_id: spanId }
        // A span the sampler left out records nothing: no projection to run for it.
        if (span.isRecording()) ctx.state.telemetrySpan = span
      }
      if (metrics !== undefined) {
        metrics.inFlight.inc()
        ctx.state.telemetryCounted = true
      }
      return undefined
    })
    kernel.hooks.annotate.tap({ name: 'telemetry', stage: 1000 }, (reply: Reply, ctx) => {
      if (ctx.state.telemetrySpan === undefined && metrics === undefined) return
      // After the response is written (the server writes right after annotate).
      if (pending.length === 0) setImmediate(project)
      pending.push({ ctx, status: reply.status, end: ctx.log.now() })
    })
    if (metricsOn) {
      kernel.router
        .get(options.metricsPath ?? 'metrics', async (ctx) => {
          await allowed(kernel, ctx)
          const body = (await api.metricsText()) ?? ''
          return text(body)
            .header('content-type', metrics!.registry.contentType)
            .header('cache-control', 'no-store')
        })
        .name('telemetry.metrics')
    }
    return api
  },
})

export { KNOWN_METHODS, methodAttribute } from './method.js'
export { operationOf } from './operation.js'
export { createMetrics, observeRequest } from './metrics.js'
export type { Metrics } from './metrics.js'
