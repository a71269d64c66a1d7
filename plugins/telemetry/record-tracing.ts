// The `exporter` path, wired: ids and the sampling decision when a request arrives, span records
// projected after the response (span-records.ts), queued and exported in batches (span-batcher.ts).
import { TraceFlags, type SpanContext } from '@opentelemetry/api'
import type { Logger } from 'fw'
import { SpanBatcher } from './span-batcher.js'
import { callerSpanContext, type TraceSettings } from './span-attributes.js'
import { projectRecords, type RecordOrigin, type SpanRecordExporter } from './span-records.js'
import { isSampled, newSpanId, newTraceId, ratioSampler } from './trace-ids.js'
import type { ResolvedLimits, Tracing } from './types.js'

/** What the `exporter` path needs, resolved at boot. */
export interface RecordTracingOptions {
  readonly exporter: SpanRecordExporter
  readonly sampleRatio: number
  readonly limits: ResolvedLimits
  readonly origin: RecordOrigin
  readonly settings: TraceSettings
  readonly logger: Logger
}

/** The `exporter` path: fw's span records in batches to any OpenTelemetry `SpanExporter`. */
export function createRecordTracing(options: RecordTracingOptions): Tracing {
  const { settings, origin, logger } = options
  const root = ratioSampler(options.sampleRatio)
  const batcher = new SpanBatcher(options.exporter, options.limits, {
    dropping: ({ maxQueueSize }) =>
      logger.warn(
        `telemetry: the span queue is full (${maxQueueSize} spans): dropping requests' spans until the exporter catches up`,
      ),
    failing: (error) =>
      logger.error('telemetry: exporting spans failed (requests are unaffected)', { error }),
    recovered: (batches) =>
      logger.info(`telemetry: exporting spans again, after ${batches} failed batches`),
  })
  return {
    start(ctx) {
      const parent = callerSpanContext(ctx)
      const traceId = parent?.traceId ?? newTraceId()
      const spanId = newSpanId()
      if (!isSampled(parent, traceId, root))
        return { traceId, spanId, traceFlags: TraceFlags.NONE, traceState: parent?.traceState }
      const context: SpanContext = {
        traceId,
        spanId,
        traceFlags: TraceFlags.SAMPLED,
        traceState: parent?.traceState,
      }
      ctx.state.telemetryContext = context
      if (parent !== undefined) ctx.state.telemetryParent = parent
      return context
    },
    finish(ctx, status, end) {
      const server = ctx.state.telemetryContext
      if (server === undefined) return
      // Straight onto the queue, kept (or dropped) together.
      const queue = batcher.queue
      const from = queue.length
      try {
        projectRecords(queue, ctx, server, ctx.state.telemetryParent, status, end, settings, origin)
      } catch (error) {
        batcher.rollback(from)
        throw error
      }
      batcher.commit(from)
    },
    flush: () => batcher.flush(),
    shutdown: () => batcher.shutdown(),
    stats: () => batcher.stats,
  }
}
