import { setMaxListeners } from 'node:events'
import type { Kernel } from 'fw'
import type PgBoss from 'pg-boss'
import type { JobDefinition } from './define-job.js'
import type { JobEnvelope } from './dispatch.js'
import { AttemptAborted, failureOf, runAttempt, type FinishedRun } from './run.js'

/** What a worker needs: the app, a started pg-boss with `supervise`, and the jobs it runs. */
export interface WorkerSettings {
  readonly kernel: Kernel
  readonly boss: PgBoss
  readonly jobs: readonly JobDefinition<never>[]
  /** Overrides each job's `concurrency`. */
  readonly concurrency: number | undefined
  readonly pollSeconds: number
  readonly onRun: (run: FinishedRun) => void
  readonly progress: (id: string, done: number, total: number | undefined) => Promise<void>
}

/**
 * Runs jobs in this process: per job, one pg-boss `work` loop that fetches up to `concurrency`
 * jobs at a time (`FOR UPDATE SKIP LOCKED`: no two workers get one job) and runs them at once.
 * pg-boss completes the batch's jobs when the batch returns; a failed attempt is failed first,
 * by id, so the completion (which touches only active jobs) leaves it to its retry.
 */
export class Worker {
  readonly #s: WorkerSettings
  readonly #stopping = new AbortController()
  readonly #batches = new Set<Promise<void>>()
  #stopped: Promise<void> | undefined

  constructor(settings: WorkerSettings) {
    this.#s = settings
    // Every running batch listens to it (one per job): no listener limit.
    setMaxListeners(0, this.#stopping.signal)
  }

  /** Starts a fetch loop per job. */
  async start(): Promise<void> {
    const { boss, jobs, concurrency, pollSeconds } = this.#s
    for (const job of jobs) {
      const options = {
        batchSize: concurrency ?? job.concurrency,
        pollingIntervalSeconds: pollSeconds,
        includeMetadata: true as const,
      }
      const id: string = await boss.work<JobEnvelope>(job.name, options, async (rows) => {
        await this.#track(this.#batch(job, rows))
        // A full batch means more may wait: fetch again at once instead of after the poll
        // interval (pg-boss skips its pause for a notified loop). bench/jobs.ts measures it.
        if (rows.length >= options.batchSize) boss.notifyWorker(id)
      })
    }
  }

  #track(batch: Promise<void>): Promise<void> {
    this.#batches.add(batch)
    // Never rejects (`#batch` catches every attempt's failure); the delete runs either way.
    batch.then(
      () => this.#batches.delete(batch),
      () => this.#batches.delete(batch),
    )
    return batch
  }

  async #batch(job: JobDefinition<never>, rows: PgBoss.JobWithMetadata<JobEnvelope>[]) {
    const { kernel, boss, onRun, progress } = this.#s
    const { signal, release } = batchSignal(job, this.#stopping.signal)
    // `runAttempt` never rejects: the release always runs.
    const runs = await Promise.all(
      rows.map((row) => runAttempt({ kernel, job, row, signal, progress })),
    )
    release()
    const failed = runs.filter((run) => run.error !== undefined)
    // One statement per failure: each keeps its own error as its output.
    for (const run of failed) await boss.fail(job.name, run.id, failureOf(run.error) as object)
    for (const run of runs) onRun(run)
  }

  /**
   * Stops fetching, lets running attempts finish for up to `timeoutMs`, then aborts the rest:
   * they fail and go back to their queue (retried as any failure). Closes pg-boss's pool.
   */
  stop(timeoutMs: number): Promise<void> {
    this.#stopped ??= this.#stop(timeoutMs)
    return this.#stopped
  }

  async #stop(timeoutMs: number): Promise<void> {
    const { boss, jobs } = this.#s
    for (const job of jobs) await boss.offWork(job.name)
    const deadline = Date.now() + timeoutMs
    // A fetch in flight when the loops were told to stop may still hand over a batch: wait until
    // none runs and none came for a moment.
    for (;;) {
      const pending = [...this.#batches]
      if (pending.length === 0) {
        await sleep(QUIET_MS)
        if (this.#batches.size === 0) break
        continue
      }
      const left = deadline - Date.now()
      if (left <= 0) this.#stopping.abort()
      await settledWithin(Promise.allSettled(pending), Math.max(left, QUIET_MS))
    }
    await boss.stop({ graceful: false, wait: true })
  }
}

/**
 * The signal of a batch's attempts, which start together and share their job's timeout: one timer
 * and one controller per batch, not per attempt. Aborted at the timeout or when the worker stops
 * for good (test/plugins/jobs/killed-worker.test.ts, sigterm.test.ts); `release` clears both.
 */
function batchSignal(job: JobDefinition<never>, stopping: AbortSignal) {
  const controller = new AbortController()
  // Every attempt of the batch races it (up to the job's concurrency): no listener limit.
  setMaxListeners(0, controller.signal)
  const timer = setTimeout(
    () => controller.abort(new AttemptAborted(`timed out after ${job.timeout} s`)),
    job.timeout * 1000,
  )
  const onStop = () => controller.abort(new AttemptAborted('the worker stopped before it finished'))
  if (stopping.aborted) onStop()
  else stopping.addEventListener('abort', onStop, { once: true })
  const release = () => {
    clearTimeout(timer)
    stopping.removeEventListener('abort', onStop)
  }
  return { signal: controller.signal, release }
}

/** How long a stopping worker waits for a batch that a fetch in flight may still hand over. */
const QUIET_MS = 150

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Waits for `pending` for at most `ms`. The timer is cleared when `pending` settles first: left
 * running, it would hold the stopped process open until it fires
 * (test/plugins/jobs/sigterm.test.ts: the process ends as its event loop empties).
 */
async function settledWithin(pending: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  await Promise.race([pending, elapsed])
  clearTimeout(timer)
}
