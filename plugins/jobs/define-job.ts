import { jobsErrors } from './errors.js'
import type { JobRun } from './job-run.js'

/** How long a failed job waits before its next attempt. */
export interface Backoff {
  /** Seconds before the first retry (default 0). */
  readonly delay: number
  /** Double the wait at each retry (pg-boss's `retryBackoff`: delay × 2^(attempt−1), jittered). */
  readonly exponential?: boolean
}

/** What a job does and how it is run. */
export interface JobSpec<P> {
  /** Runs the job; a thrown error (or a rejection) fails this attempt. */
  handler(payload: P, run: JobRun): void | Promise<void>
  /** Attempts after the first one before the job is kept as failed (default 2). */
  retries?: number
  /** Wait between attempts: seconds, or `{ delay, exponential }` (default: retry at once). */
  backoff?: number | Backoff
  /**
   * Seconds an attempt may run (default 900): past it the attempt fails (its `signal` aborts), and
   * a job whose worker died is retried once this has passed.
   */
  timeout?: number
  /** Attempts of this job run at once in one worker process (default 1). */
  concurrency?: number
  /**
   * One waiting job per `key`: a dispatch with the key of a job that has not started yet enqueues
   * nothing (default false).
   */
  unique?: boolean
}

/** A defined job: give it to the plugin's `jobs` option or `define`, and to `dispatch`. */
export interface JobDefinition<P> {
  readonly name: string
  readonly retries: number
  readonly backoff: Backoff
  readonly timeout: number
  readonly concurrency: number
  readonly unique: boolean
  readonly handler: (payload: P, run: JobRun) => void | Promise<void>
}

/** Letters, digits, `.`, `_`, `-`, `/`, as pg-boss names queues. */
const NAME = /^[A-Za-z0-9][\w.\-/]{0,99}$/
/** pg-boss refuses an expiration of 24 hours or more. */
const MAX_TIMEOUT_S = 23 * 3600

function wholeNumber(value: unknown, min: number, max: number): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max
}

function problemOf(name: unknown, spec: JobSpec<unknown>): string | undefined {
  if (typeof name !== 'string' || !NAME.test(name))
    return 'the name must be 1 to 100 letters, digits, `.`, `_`, `-` or `/`, starting with a letter or digit'
  if (typeof spec?.handler !== 'function') return '`handler` must be a function'
  if (spec.retries !== undefined && !wholeNumber(spec.retries, 0, 1000))
    return '`retries` must be a whole number from 0 to 1000'
  if (spec.timeout !== undefined && !wholeNumber(spec.timeout, 1, MAX_TIMEOUT_S))
    return `\`timeout\` must be a whole number of seconds from 1 to ${MAX_TIMEOUT_S}`
  if (spec.concurrency !== undefined && !wholeNumber(spec.concurrency, 1, 1000))
    return '`concurrency` must be a whole number from 1 to 1000'
  const delay = typeof spec.backoff === 'object' ? spec.backoff.delay : spec.backoff
  if (delay !== undefined && !wholeNumber(delay, 0, 86_400))
    return '`backoff` must be a whole number of seconds from 0 to 86400'
  return undefined
}

/**
 * Declares a job: its name (its queue), its handler and how it is retried. The payload type is
 * the handler's first parameter; `dispatch(job, payload)` checks it. Fails with
 * `FW_ERR_JOBS_DEFINITION_INVALID` when a name or an option is not usable.
 *
 * @example
 * export const sendWelcome = defineJob('mail.welcome', {
 *   retries: 3,
 *   backoff: { delay: 10, exponential: true },
 *   timeout: 30,
 *   handler: async ({ userId }: { userId: number }) => mailer.welcome(userId),
 * })
 */
export function defineJob<P>(name: string, spec: JobSpec<P>): JobDefinition<P> {
  const problem = problemOf(name, spec as JobSpec<unknown>)
  if (problem !== undefined)
    throw jobsErrors.error('FW_ERR_JOBS_DEFINITION_INVALID', { name: String(name), problem })
  const backoff: Backoff =
    typeof spec.backoff === 'object'
      ? { delay: spec.backoff.delay, exponential: spec.backoff.exponential === true }
      : { delay: spec.backoff ?? 0, exponential: false }
  return Object.freeze({
    name,
    retries: spec.retries ?? 2,
    backoff: Object.freeze(backoff),
    timeout: spec.timeout ?? 900,
    concurrency: spec.concurrency ?? 1,
    unique: spec.unique === true,
    handler: spec.handler,
  })
}
