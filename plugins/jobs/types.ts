import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { JobDefinition } from './define-job.js'
import type { FailedJob, JobSummary, QueueStats } from './inspect.js'

export type { JobRun } from './job-run.js'
export type { QueueStats } from './inspect.js'

// The jobs plugin's public types: its options, its API (`kernel.plugin('jobs')`) and its config
// keys, declared on fw's registries.

/**
 * Job names and their payloads, for `dispatch('name', payload)` by name: an app declares its own
 * by declaration merging (a job object typed by `defineJob` needs none).
 *
 * @example
 * declare module 'fw/plugins/jobs' {
 *   interface JobPayloads {
 *     'mail.send': { to: string; subject: string }
 *   }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface JobPayloads {}

/** Options of `dispatch`. */
export interface DispatchOptions {
  /** Seconds to wait before the job may run. */
  delay?: number
  /** When the job may run (a `Date`); overrides `delay`. */
  at?: Date
  /**
   * The job's key: for a job defined `unique`, a second dispatch with a key whose job is still
   * waiting enqueues nothing (`dispatch` answers `null`).
   */
  key?: string
  /**
   * The EntityManager whose transaction the job joins: enqueued if it commits, never if it rolls
   * back. Without it, the transaction the calling code runs in (`em.transactional()`, or the
   * request's EntityManager once it began one), else none: enqueued at once.
   */
  em?: EntityManager
}

/** Options of `work()`: which jobs this process runs, and how many at once. */
export interface WorkOptions {
  /** Job names (queues) to run; default every defined job. */
  queues?: readonly string[]
  /** Jobs of one queue run at once in this process; default each job's `concurrency`. */
  concurrency?: number
}

/** Options of the jobs plugin. */
export interface JobsOptions {
  /** Jobs to define at setup (more with `define`). */
  jobs?: readonly JobDefinition<never>[]
  /** Recurring dispatches to declare at setup (more with `schedule`). */
  schedules?: readonly ScheduleOption[]
  /**
   * The PostgreSQL schema of the queue's tables (default `fw_jobs`), created by the plugin's
   * migration.
   */
  schema?: string
}

/** A schedule as the plugin's `schedules` option takes it. */
export interface ScheduleOption {
  /** Five cron fields (minute hour day month weekday), e.g. `0 3 * * *`. */
  readonly cron: string
  readonly job: JobDefinition<never>
  readonly payload?: unknown
  /** An IANA time zone (default UTC). */
  readonly tz?: string
}

/** A recurring dispatch: `cron` (five fields, minute precision) in `tz` (default UTC). */
export interface ScheduleEntry {
  readonly name: string
  readonly cron: string
  readonly tz: string
}

/** What `kernel.plugin('jobs')` returns. */
export interface JobsApi {
  /** Adds a job definition (at setup or before `work()`); a name defined twice is refused. */
  define<P>(job: JobDefinition<P>): JobDefinition<P>
  /** The defined jobs, by name. */
  definitions(): ReadonlyMap<string, JobDefinition<never>>
  /**
   * Enqueues a job; answers its id, or `null` when a `unique` job with that `key` is waiting.
   * Inside a transaction the job is enqueued only if it commits (see {@link DispatchOptions.em}).
   *
   * @example
   * await jobs.dispatch(sendWelcome, { userId: 5 }, { delay: 60 })
   */
  dispatch<P>(job: JobDefinition<P>, payload: P, options?: DispatchOptions): Promise<string | null>
  dispatch<N extends keyof JobPayloads & string>(
    name: N,
    payload: JobPayloads[N],
    options?: DispatchOptions,
  ): Promise<string | null>
  /**
   * Dispatches `job` on `cron` (minute precision), once per tick across every instance that
   * runs a worker; replaces the schedule of that job.
   */
  schedule<P>(cron: string, job: JobDefinition<P>, payload: P, options?: { tz?: string }): void
  /** Starts running jobs in this process (`fw work`, `fw serve --with-worker`). */
  work(options?: WorkOptions): Promise<void>
  /**
   * Stops taking jobs, lets the running ones finish for up to `timeoutMs`, then aborts them and
   * hands them back to the queue (retried like a failure). Idempotent.
   */
  stop(timeoutMs?: number): Promise<void>
  /** True while this process runs jobs. */
  readonly working: boolean
  /** Jobs by state, newest first (`fw jobs:list`). */
  list(options?: { state?: string; name?: string; limit?: number }): Promise<JobSummary[]>
  /** Failed jobs with their error and attempts (`fw jobs:failed`). */
  failed(options?: { limit?: number }): Promise<FailedJob[]>
  /** One job, or undefined. */
  find(id: string): Promise<JobSummary | undefined>
  /** Puts a failed job back in its queue; false when no failed job has that id. */
  retry(id: string): Promise<boolean>
  /** Per queue: waiting, running, failed, and the oldest waiting job's age in seconds. */
  stats(): Promise<QueueStats[]>
}

declare module 'fw' {
  interface PluginApis {
    jobs: JobsApi
  }
  interface FwConfig {
    jobs: {
      /** Seconds between polls of an idle queue (at least 0.5). */
      poll_interval: number
      /** Seconds between maintenance runs (expired jobs retried, old jobs archived). */
      maintenance_interval: number
      /** Seconds a stopping worker lets running jobs finish before handing them back. */
      drain_timeout: number
      /** Health: a queue with more jobs waiting than this is `degraded`. */
      backlog_warn: number
      /** Health: a queue whose oldest waiting job waited longer (seconds) is `degraded`. */
      oldest_warn: number
      /**
       * Seconds between a worker's checks of the schedules (1 to 45): a tick is sent at most this
       * long after its minute begins.
       */
      cron_interval: number
    }
  }
}
