// The telemetry plugin's types: its options and API, and what its parts hand each other (a
// tracing, the span queue's limits and counts). Types only, so every part imports them from here.
import type { SpanContext, TracerProvider } from '@opentelemetry/api'
import type { RequestContext } from 'fw'
import type { SpanRecordExporter, SpanResource } from './span-records.js'

/** Options of the telemetry plugin (code-level choices; the metrics switch and token are config). */
export interface TelemetryOptions {
  /**
   * Where spans go, the cheap way: fw builds each request's spans itself after the response (the
   * same spans as the SDK's) and hands them in batches to this exporter, any OpenTelemetry
   * `SpanExporter` (OTLP, console, in-memory…). Excludes `tracerProvider`.
   */
  exporter?: SpanRecordExporter | undefined
  /**
   * The share of new traces recorded with `exporter`, 0…1 (default 1: every request). A request
   * with a `traceparent` follows its caller's `sampled` flag (parent-based sampling).
   */
  sampleRatio?: number
  /** The span queue of `exporter` (the SDK's `BatchSpanProcessor` names and defaults). */
  batch?: BatchLimits
  /**
   * The resource of `exporter`'s spans. Default: `service.name` (config `telemetry.service_name`,
   * env `OTEL_SERVICE_NAME`, else `app.name`) and the `telemetry.sdk.*` attributes.
   */
  resource?: SpanResource
  /**
   * Where spans go through the OpenTelemetry SDK (its span processors see every span). Default,
   * when there is no `exporter`: the global provider (`trace.setGlobalTracerProvider`, which an
   * OpenTelemetry SDK registers). With neither at boot, requests are not traced and the plugin adds
   * nothing to them.
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
  /** True when requests are traced (an exporter, or a tracer provider at boot). */
  readonly tracing: boolean
  /**
   * Exports every span of the requests answered so far (the exporter's queue, or the SDK
   * provider's `forceFlush`). Never rejects: an exporter's failure is logged.
   */
  flush(): Promise<void>
  /** The span queue's counts with `exporter` (queued, exported, dropped, failed); else undefined. */
  spanQueue(): SpanQueueStats | undefined
  /** The Prometheus text of the metrics now; undefined when metrics are off. */
  metricsText(): Promise<string | undefined>
  /**
   * Where the per-queue gauges (`jobs_waiting`, `jobs_running`, `jobs_failed`) are read when the
   * metrics are scraped: the jobs plugin hands its `stats()`.
   */
  readQueuesFrom(read: () => Promise<readonly QueueFigures[]>): void
  /**
   * Projects a background job's finished run as a request's: a CONSUMER span named after the job
   * (a child of the trace its context's `traceparent` names: the dispatching request's), its
   * statements as children, its failure as an `exception` event; and its duration in
   * `job_run_duration_seconds`. The jobs plugin calls it for every run.
   */
  recordJobRun(run: JobRunRecord): void
}

/** One queue's counts, as the gauges show them (the jobs plugin's `stats()`). */
export interface QueueFigures {
  readonly name: string
  readonly waiting: number
  readonly running: number
  readonly failed: number
}

/** A finished job run, as {@link TelemetryApi.recordJobRun} takes it. */
export interface JobRunRecord {
  /** The run's context: its event log, and the dispatching request's `traceparent` header. */
  readonly context: RequestContext
  /** The job's name (its queue). */
  readonly queue: string
  readonly status: 'completed' | 'retrying' | 'failed'
  /** Milliseconds from the run's start. */
  readonly duration: number
}

/** The queue's limits (the names and defaults of the SDK's `BatchSpanProcessor`). */
export interface BatchLimits {
  /** Spans waiting at most; the spans of a request that would not fit are dropped. Default 2048. */
  maxQueueSize?: number
  /** Spans per export at most; this many waiting starts an export at once. Default 512. */
  maxExportBatchSize?: number
  /** How long the first waiting span waits for a batch to fill, in ms. Default 5000. */
  scheduledDelayMillis?: number
  /** How long an export may take before it counts as failed, in ms. Default 30000. */
  exportTimeoutMillis?: number
}

/** The limits with their defaults, as the batcher uses them. */
export type ResolvedLimits = Required<BatchLimits>

/** What went through the queue since boot. */
export interface SpanQueueStats {
  /** Spans waiting now. */
  readonly queued: number
  /** Spans the exporter accepted. */
  readonly exported: number
  /** Spans dropped because the queue was full (or the kernel closed). */
  readonly dropped: number
  /** Spans in exports that failed or timed out. */
  readonly failed: number
}

/** One way of tracing requests (the SDK's spans, or fw's records), as the plugin drives it. */
export interface Tracing {
  /**
   * On the request's arrival: its trace and server span ids (for its log lines); what the
   * projection needs goes into `ctx.state` when the request is sampled.
   */
  start(ctx: RequestContext): SpanContext
  /** After the response: the request's spans, to the exporter (or its processor). */
  finish(ctx: RequestContext, status: number, end: number): void
  /** Exports everything finished so far. */
  flush(): Promise<void>
  /** Exports everything finished and stops (the kernel is closing). */
  shutdown(): Promise<void>
  /** The span queue's counts (the `exporter` path only). */
  stats(): SpanQueueStats | undefined
}
