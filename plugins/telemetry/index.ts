// Observability in production (issue "the request event log as OpenTelemetry traces and
// Prometheus metrics"): a trace per request and Prometheus metrics, both projections of the
// request's event log rather than monkey-patched instrumentation.
import { timingSafeEqual } from 'node:crypto'
import type { Span, SpanContext } from '@opentelemetry/api'
import { definePlugin, text, type Kernel, type Reply, type RequestContext } from 'fw'
import { telemetryErrors } from './errors.js'
import { KNOWN_METHODS } from './method.js'
import { createMetrics, observeRequest, setQueueGauges, type Metrics } from './metrics.js'
import type {
  JobRunRecord,
  QueueFigures,
  TelemetryApi,
  TelemetryOptions,
  Tracing,
} from './types.js'
import { tracingLoader } from './tracing-options.js'

declare module 'fw' {
  interface PluginApis {
    telemetry: TelemetryApi
  }
  interface ContextState {
    /** The request's server span while it is recorded (the telemetry plugin's SDK path). */
    telemetrySpan?: Span
    /** The server span's context of a sampled request (the telemetry plugin's `exporter` path). */
    telemetryContext?: SpanContext
    /** The caller's span, from `traceparent` (the telemetry plugin's `exporter` path). */
    telemetryParent?: SpanContext
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
      /** `service.name` of the exporter's spans (env `OTEL_SERVICE_NAME`; default `app.name`). */
      service_name: string | undefined
    }
  }
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
    throw telemetryErrors.httpError('FW_ERR_TELEMETRY_METRICS_UNAUTHENTICATED', {
      headers: { 'www-authenticate': 'Bearer' },
    })
  if ((who.usertype ?? 0) < floor)
    throw telemetryErrors.httpError('FW_ERR_TELEMETRY_METRICS_FORBIDDEN')
}

/**
 * The telemetry plugin. Tracing: each request gets a trace, its ids made on arrival (into its log
 * lines) and its spans (server, phases, statements) projected from the event log after the
 * response: fw's own span records batched to an `exporter`, or the OpenTelemetry SDK's spans through
 * a `tracerProvider` (given, or the global one). Metrics (config `telemetry.metrics`): Prometheus
 * text at `GET /metrics`, for the token or a user at the floor.
 *
 * @example
 * import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
 * kernel.register(telemetry, { exporter: new OTLPTraceExporter(), sampleRatio: 0.1 })
 */
/** A request answered and waiting to be projected (see `project` in `setup`). */
interface Answered {
  readonly ctx: RequestContext
  readonly status: number
  readonly end: number
}

/** The answered requests as spans (to the exporter) and metrics, each failure reported alone. */
function projectAnswered(
  kernel: Kernel,
  done: readonly Answered[],
  tracing: Tracing | undefined,
  metrics: Metrics | undefined,
  knownMethods: ReadonlySet<string>,
): void {
  for (const { ctx, status, end } of done) {
    try {
      tracing?.finish(ctx, status, end)
      if (metrics !== undefined) {
        if (ctx.state.telemetryCounted === true) metrics.inFlight.dec()
        observeRequest(metrics, ctx, status, end, knownMethods)
      }
    } catch (error) {
      // A projection's or SDK's failure is reported, never thrown out of the event loop.
      kernel.logger.error('telemetry: projecting a request failed', { error, path: ctx.path })
    }
  }
}

/**
 * A finished job run as spans (a CONSUMER span under the dispatching request's trace, built from
 * the run's log after the fact, as a request's are) and its duration; a failure is reported.
 */
function projectJobRun(
  kernel: Kernel,
  run: JobRunRecord,
  tracing: Tracing | undefined,
  metrics: Metrics | undefined,
): void {
  try {
    metrics?.jobDuration.observe({ queue: run.queue, status: run.status }, run.duration / 1000)
    if (tracing === undefined) return
    tracing.start(run.context)
    tracing.finish(run.context, run.status === 'completed' ? 200 : 500, run.duration)
  } catch (error) {
    kernel.logger.error('telemetry: projecting a job run failed', { error, job: run.queue })
  }
}

/** The Prometheus text of the metrics now, the health checks' and queues' gauges refreshed first. */
async function metricsText(
  kernel: Kernel,
  metrics: Metrics,
  readQueues: (() => Promise<readonly QueueFigures[]>) | undefined,
): Promise<string> {
  if (readQueues !== undefined) setQueueGauges(metrics, await readQueues())
  if (kernel.hasPlugin('health')) {
    const report = await kernel.plugin('health').run()
    for (const [check, result] of Object.entries(report.checks))
      metrics.health.set({ check }, ['ok', 'pass', 'warn'].includes(String(result.status)) ? 1 : 0)
  }
  return metrics.registry.metrics()
}

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
        service_name: undefined,
      },
    },
    schema: {
      'telemetry.metrics': 'boolean',
      'telemetry.metrics_token': 'string?',
      'telemetry.metrics_min_usertype': 'integer',
      'telemetry.known_methods': 'string[]',
      'telemetry.service_name': 'string?',
    },
    env: {
      'telemetry.metrics': 'FW_METRICS',
      'telemetry.metrics_token': 'FW_METRICS_TOKEN',
      // The name the HTTP semantic conventions give it.
      'telemetry.known_methods': 'OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS',
      'telemetry.service_name': 'OTEL_SERVICE_NAME',
    },
  },
  setup(kernel, options = {}) {
    const knownMethods: ReadonlySet<string> = new Set(kernel.config.telemetry.known_methods)
    const loadTracing = tracingLoader(kernel, options, {
      phaseSpans: options.phaseSpans ?? true,
      knownMethods,
    })
    const metricsOn = kernel.config.telemetry.metrics
    let tracing: Tracing | undefined
    let metrics: Metrics | undefined
    // Requests answered in this turn of the event loop, projected together once their responses
    // are written (one `setImmediate` per turn, not one per request).
    let pending: Answered[] = []
    const queues: { read?: () => Promise<readonly QueueFigures[]> } = {}
    const project = () => {
      const done = pending
      pending = []
      projectAnswered(kernel, done, tracing, metrics, knownMethods)
    }
    const api: TelemetryApi = {
      tracing: loadTracing !== undefined,
      async flush() {
        project()
        await tracing?.flush()
      },
      spanQueue: () => tracing?.stats(),
      metricsText: async () => metrics && metricsText(kernel, metrics, queues.read),
      readQueuesFrom: (read) => void (queues.read = read),
      recordJobRun: (run) => projectJobRun(kernel, run, tracing, metrics),
    }
    // Nothing per request unless tracing or the metrics ask for it.
    if (loadTracing === undefined && !metricsOn) return api
    kernel.hooks.boot.tapPromise('telemetry', async () => {
      if (loadTracing !== undefined) tracing = await loadTracing()
      if (metricsOn) metrics = await createMetrics(options.metricsPrefix ?? '')
    })
    // What is still waiting is projected and exported before the app stops (with a tracer
    // provider, the app's SDK shutdown, after, exports it).
    kernel.hooks.shutdown.tapPromise('telemetry', async () => {
      project()
      await tracing?.shutdown()
    })
    kernel.hooks.request.tap({ name: 'telemetry', stage: -2000 }, (ctx) => {
      if (tracing !== undefined) {
        const { traceId, spanId } = tracing.start(ctx)
        const fields = ctx.state.logFields
        ctx.state.logFields =
          fields === undefined
            ? { trace_id: traceId, span_id: spanId }
            : { ...fields, trace_id: traceId, span_id: spanId }
      }
      if (metrics !== undefined) {
        metrics.inFlight.inc()
        ctx.state.telemetryCounted = true
      }
      return undefined
    })
    kernel.hooks.annotate.tap({ name: 'telemetry', stage: 1000 }, (reply: Reply, ctx) => {
      if (
        ctx.state.telemetrySpan === undefined &&
        ctx.state.telemetryContext === undefined &&
        metrics === undefined
      )
        return
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
export { telemetryErrors } from './errors.js'
export type {
  BatchLimits,
  JobRunRecord,
  QueueFigures,
  SpanQueueStats,
  TelemetryApi,
  TelemetryOptions,
} from './types.js'
export type {
  SpanEventRecord,
  SpanRecord,
  SpanRecordExporter,
  SpanResource,
} from './span-records.js'
