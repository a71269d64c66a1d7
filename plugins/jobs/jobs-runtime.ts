import type { Kernel, RequestContext } from 'fw'
import type PgBoss from 'pg-boss'
import type { JobDefinition } from './define-job.js'
import { dispatchJob, transactionOf, type Origin } from './dispatch.js'
import { jobsErrors } from './errors.js'
import { inspector, type FailedJob, type Inspector, type JobSummary } from './inspect.js'
import { ensureQueues, openBoss, type QueueSettings } from './queue.js'
import type { FinishedRun } from './run.js'
import { applySchedules, checkSchedule } from './schedules.js'
import type {
  DispatchOptions,
  JobsApi,
  QueueStats,
  ScheduleEntry,
  ScheduleOption,
  WorkOptions,
} from './types.js'
import { Worker } from './worker.js'

/**
 * The jobs plugin's state in one process: the definitions and schedules, and two pg-boss
 * instances opened on first use: the client (dispatch and inspection: no maintenance, no cron
 * clock, so a server that only dispatches opens no timers) and the worker's.
 */
export class JobsRuntime implements JobsApi {
  readonly #kernel: Kernel
  readonly #settings: QueueSettings
  readonly #definitions = new Map<string, JobDefinition<never>>()
  readonly #schedules = new Map<string, ScheduleEntry & { payload: unknown }>()
  #client: Promise<{ boss: PgBoss; inspect: Inspector }> | undefined
  #worker: Worker | undefined
  /** Observers of finished runs (debug history, telemetry, metrics, tests). */
  readonly observers: Array<(run: FinishedRun) => void> = []

  constructor(settings: QueueSettings) {
    this.#kernel = settings.kernel
    this.#settings = settings
  }

  define<P>(job: JobDefinition<P>): JobDefinition<P> {
    if (this.#definitions.has(job.name))
      throw jobsErrors.error('FW_ERR_JOBS_DUPLICATE', { name: job.name })
    this.#definitions.set(job.name, job as unknown as JobDefinition<never>)
    return job
  }

  definitions(): ReadonlyMap<string, JobDefinition<never>> {
    return this.#definitions
  }

  #definitionOf(job: JobDefinition<unknown> | string): JobDefinition<never> {
    const name = typeof job === 'string' ? job : job.name
    const found = this.#definitions.get(name)
    if (found === undefined) throw jobsErrors.error('FW_ERR_JOBS_UNKNOWN', { name })
    return found
  }

  /**
   * The client, opened on first use; an opening that failed (the database away) is forgotten, so
   * the next use tries again (test/e2e/database-faults.test.ts: the queues' health checks recover
   * with the database).
   */
  #opened(): Promise<{ boss: PgBoss; inspect: Inspector }> {
    if (this.#client !== undefined) return this.#client
    const client = openBoss(this.#settings, false).then(async (boss) => {
      try {
        await ensureQueues(boss, this.#definitions.values())
      } catch (error) {
        await boss.stop({ graceful: false }).catch(() => undefined)
        throw error
      }
      return { boss, inspect: inspector(boss.getDb() as never, this.#settings.schema) }
    })
    this.#client = client
    client.catch(() => {
      if (this.#client === client) this.#client = undefined
    })
    return client
  }

  async dispatch(
    job: JobDefinition<unknown> | string,
    payload: unknown,
    options?: DispatchOptions,
  ): Promise<string | null> {
    const definition = this.#definitionOf(job)
    const transaction =
      this.#client === undefined && this.#settings.db.target.kind !== 'postgresql'
        ? transactionOf(options)
        : undefined
    if (transaction !== undefined)
      return this.#dispatchOpening(transaction, definition, payload, options)
    const { boss } = await this.#opened()
    return dispatchJob(boss, definition, payload, options, originOf)
  }

  /**
   * A first dispatch inside a transaction on PGlite, where the queue's client would open on the
   * ORM's one connection, which the transaction holds (it would wait for it until the pool's
   * timeout): a client for this dispatch alone opens on the transaction itself, so the queues it
   * makes commit or roll back with the job, and stops; the process's client opens on the next use
   * outside (test/plugins/jobs/transactions.test.ts).
   */
  async #dispatchOpening(
    transaction: NonNullable<ReturnType<typeof transactionOf>>,
    definition: JobDefinition<never>,
    payload: unknown,
    options: DispatchOptions | undefined,
  ): Promise<string | null> {
    const boss = await openBoss(this.#settings, false, transaction)
    try {
      await ensureQueues(boss, this.#definitions.values())
      return await dispatchJob(boss, definition, payload, options, originOf)
    } finally {
      await boss.stop({ graceful: false, wait: true })
    }
  }

  schedule(cron: string, job: JobDefinition<unknown>, payload: unknown, o?: { tz?: string }) {
    const definition = this.#definitionOf(job)
    const entry = { name: definition.name, cron, tz: o?.tz ?? 'UTC', payload }
    checkSchedule(entry)
    this.#schedules.set(definition.name, entry)
  }

  /** The plugin's `schedules` option. */
  scheduleAll(entries: readonly ScheduleOption[]): void {
    for (const s of entries)
      this.schedule(s.cron, s.job as JobDefinition<unknown>, s.payload ?? {}, { tz: s.tz ?? 'UTC' })
  }

  async work(o: WorkOptions = {}): Promise<void> {
    if (this.#worker !== undefined) return
    const jobs = this.#selected(o.queues)
    const boss = await openBoss(this.#settings, true)
    await ensureQueues(boss, this.#definitions.values())
    await applySchedules(boss, this.#schedules.values())
    const { inspect } = await this.#opened()
    this.#worker = new Worker({
      kernel: this.#kernel,
      boss,
      jobs,
      concurrency: o.concurrency,
      pollSeconds: this.#kernel.config.jobs.poll_interval,
      onRun: (run) => this.#notify(run),
      progress: (id, done, total) => inspect.progress(id, done, total),
    })
    await this.#worker.start()
  }

  /** The jobs a worker runs: every defined one, or those `queues` names (an unknown one fails). */
  #selected(queues: readonly string[] | undefined): JobDefinition<never>[] {
    if (queues === undefined || queues.length === 0) return [...this.#definitions.values()]
    return queues.map((name) => this.#definitionOf(name))
  }

  #notify(run: FinishedRun): void {
    for (const observe of this.observers) {
      try {
        observe(run)
      } catch (error) {
        this.#kernel.logger.error('jobs: a run observer failed', {
          error: (error as Error).message,
        })
      }
    }
  }

  async stop(timeoutMs = this.#kernel.config.jobs.drain_timeout * 1000): Promise<void> {
    const worker = this.#worker
    if (worker === undefined) return
    await worker.stop(timeoutMs)
    // Stopped for good: a later `work()` starts a new worker.
    if (this.#worker === worker) this.#worker = undefined
  }

  get working(): boolean {
    return this.#worker !== undefined
  }

  /** Stops the worker, then closes the client's pool (the plugin's shutdown tap). */
  async close(): Promise<void> {
    await this.stop()
    const opened = this.#client
    this.#client = undefined
    const client = await opened?.catch(() => undefined)
    await client?.boss.stop({ graceful: false, wait: true })
  }

  async list(o?: { state?: string; name?: string; limit?: number }): Promise<JobSummary[]> {
    return (await this.#opened()).inspect.list(o)
  }

  async failed(o?: { limit?: number }): Promise<FailedJob[]> {
    return (await this.#opened()).inspect.failed(o)
  }

  async find(id: string): Promise<JobSummary | undefined> {
    return (await this.#opened()).inspect.find(id)
  }

  async retry(id: string): Promise<boolean> {
    const { boss, inspect } = await this.#opened()
    const name = await inspect.failedName(id)
    if (name === undefined) return false
    await boss.retry(name, id)
    return true
  }

  async stats(): Promise<QueueStats[]> {
    return (await this.#opened()).inspect.stats()
  }
}

/**
 * The dispatching request's id and trace, as the job's envelope keeps them: the request's own
 * span when the telemetry plugin records one (so a trace can continue into the job), else the
 * `traceparent` the request came with.
 */
function originOf(ctx: RequestContext | undefined): Origin {
  if (ctx === undefined) return { request: undefined, traceparent: undefined }
  // The exporter path keeps the span's context, the SDK path the span.
  const span = ctx.state.telemetryContext ?? ctx.state.telemetrySpan?.spanContext()
  const header = ctx.headers.traceparent
  const traceparent =
    span !== undefined
      ? `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`
      : typeof header === 'string'
        ? header
        : undefined
  return { request: ctx.state.requestId, traceparent }
}
