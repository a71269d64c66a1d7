// The queue between the projection and the exporter (the `exporter` path): what the SDK's
// `BatchSpanProcessor` does, with its option names and defaults. Spans wait in a bounded queue;
// a batch goes out when `maxExportBatchSize` spans are waiting or `scheduledDelayMillis` after the
// first one, one export at a time; a full queue drops (and counts) whole requests' spans; nothing
// an exporter does (throwing, failing, never answering) reaches a request.
import { context } from '@opentelemetry/api'
import { suppressTracing, type ExportResult } from '@opentelemetry/core'
import type { SpanRecord, SpanRecordExporter } from './span-records.js'
import type { ResolvedLimits, SpanQueueStats } from './types.js'

/** How the queue reports trouble (the kernel's logger, once per episode). */
export interface BatcherReports {
  dropping(error: { maxQueueSize: number }): void
  failing(error: unknown): void
  recovered(failedBatches: number): void
}

/** Batches span records to an exporter. */
export class SpanBatcher {
  #queue: SpanRecord[] = []
  #exporting: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  /** The timeout of the export in flight. */
  #inFlight: NodeJS.Timeout | undefined
  #closed = false
  #exported = 0
  #dropped = 0
  #failed = 0
  #failedBatches = 0
  #dropping = false
  readonly #exporter: SpanRecordExporter
  readonly #limits: ResolvedLimits
  readonly #reports: BatcherReports

  constructor(exporter: SpanRecordExporter, limits: ResolvedLimits, reports: BatcherReports) {
    this.#exporter = exporter
    this.#limits = limits
    this.#reports = reports
  }

  /**
   * The queue, for a request's spans to be pushed onto as they are made (no copy), then kept or
   * dropped together by {@link commit} with the length the queue had before.
   */
  get queue(): SpanRecord[] {
    return this.#queue
  }

  /**
   * Keeps the spans pushed on {@link queue} since it was `from` long, and schedules their export;
   * or drops them all (counted) when they overflow `maxQueueSize` or the batcher is closed.
   */
  commit(from: number): void {
    const queue = this.#queue
    if (queue.length <= this.#limits.maxQueueSize && !this.#closed) {
      this.#dropping = false
      return this.#schedule()
    }
    this.#dropped += queue.length - from
    queue.length = from
    if (!this.#dropping && !this.#closed)
      this.#reports.dropping({ maxQueueSize: this.#limits.maxQueueSize })
    this.#dropping = true
  }

  /** Takes back the spans pushed since the queue was `from` long (a projection that failed). */
  rollback(from: number): void {
    this.#queue.length = from
  }

  /**
   * Exports every span queued now (in batches, one at a time), then asks the exporter to flush;
   * resolves when they are out. Never rejects: an exporter's failure is reported.
   */
  async flush(): Promise<void> {
    for (;;) {
      if (this.#exporting !== undefined) await this.#exporting
      else if (this.#queue.length > 0) this.#startExport()
      else break
    }
    await this.#exporter.forceFlush?.().catch((error: unknown) => this.#reports.failing(error))
  }

  /**
   * Exports what is queued, then shuts the exporter down; spans added later are dropped. The whole
   * of it takes at most `exportTimeoutMillis`: a collector that does not answer must not hold a
   * closing process for a timeout per batch. What is still queued then is dropped (counted and
   * said once), the export in flight no longer holds the process, and the exporter's `shutdown()`
   * is not awaited further.
   */
  async shutdown(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    let expire: NodeJS.Timeout | undefined
    const expired = new Promise<false>((resolve) => {
      expire = setTimeout(() => resolve(false), this.#limits.exportTimeoutMillis)
    })
    const settle = async () => {
      await this.flush()
      try {
        await this.#exporter.shutdown()
      } catch (error) {
        this.#reports.failing(error)
      }
      return true
    }
    const finished = await Promise.race([settle(), expired])
    clearTimeout(expire)
    if (finished) return
    const left = this.#queue.length
    this.#dropped += left
    this.#queue.length = 0
    this.#inFlight?.unref()
    this.#reports.failing(
      new Error(
        `closing: the exporter did not finish within exportTimeoutMillis (${this.#limits.exportTimeoutMillis} ms); ${left} queued spans dropped`,
      ),
    )
  }

  get stats(): SpanQueueStats {
    return {
      queued: this.#queue.length,
      exported: this.#exported,
      dropped: this.#dropped,
      failed: this.#failed,
    }
  }

  /** A full batch goes at once; less waits `scheduledDelayMillis` for more. */
  #schedule(): void {
    if (this.#exporting !== undefined || this.#closed || this.#queue.length === 0) return
    if (this.#queue.length >= this.#limits.maxExportBatchSize) return this.#startExport()
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined
      if (this.#exporting === undefined && this.#queue.length > 0) this.#startExport()
    }, this.#limits.scheduledDelayMillis).unref()
  }

  #startExport(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    const max = this.#limits.maxExportBatchSize
    let batch: SpanRecord[]
    if (this.#queue.length <= max) {
      batch = this.#queue
      this.#queue = []
    } else batch = this.#queue.splice(0, max)
    this.#exporting = this.#export(batch).then(() => {
      this.#exporting = undefined
      this.#schedule()
    })
  }

  /** One export, settled by the exporter's answer or the timeout; never rejects. */
  #export(batch: SpanRecord[]): Promise<void> {
    return new Promise((resolve) => {
      let settled = false
      const done = (result: ExportResult) => {
        if (settled) return
        settled = true
        clearTimeout(timeout)
        this.#inFlight = undefined
        if (result.code === 0) {
          this.#exported += batch.length
          if (this.#failedBatches > 0) this.#reports.recovered(this.#failedBatches)
          this.#failedBatches = 0
        } else {
          this.#failed += batch.length
          if (this.#failedBatches++ === 0)
            this.#reports.failing(result.error ?? new Error('the exporter reported a failure'))
        }
        resolve()
      }
      // Not unref'd: a closing kernel waits for the export in flight, up to this long (unless
      // the close itself runs out of time, see shutdown()).
      const timeout = setTimeout(
        () => done({ code: 1, error: new Error('the export timed out') }),
        this.#limits.exportTimeoutMillis,
      )
      this.#inFlight = timeout
      try {
        // As the SDK's batch processor: what the exporter does (an HTTP request) is not traced.
        context.with(suppressTracing(context.active()), () => this.#exporter.export(batch, done))
      } catch (error) {
        done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) })
      }
    })
  }
}
