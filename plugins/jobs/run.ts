import { EventLog, messageOf, RequestContext, runInContext, type Kernel } from 'fw'
import type PgBoss from 'pg-boss'
import type { JobDefinition } from './define-job.js'
import type { JobEnvelope } from './dispatch.js'
import type { JobRun } from './job-run.js'

/** One finished attempt, as observers (debug history, telemetry, metrics) get it. */
export interface FinishedRun {
  readonly name: string
  readonly id: string
  readonly attempt: number
  readonly status: 'completed' | 'retrying' | 'failed'
  readonly context: RequestContext
  /** Wall-clock start, ms since the epoch. */
  readonly startedAt: number
  readonly duration: number
  readonly envelope: JobEnvelope
  readonly error: unknown
}

/** A job's attempt that failed: the message pg-boss keeps in the job's `output`. */
export interface AttemptFailure {
  readonly message: string
  readonly name: string
}

/** Why an attempt was given up before its handler settled. */
export class AttemptAborted extends Error {
  override readonly name = 'JobAborted'
}

/**
 * A run's context: a `RequestContext` of its own (method `JOB`, path `/_jobs/<name>`) with its
 * own event log, so the database plugin records the run's statements in it and every projection
 * of a request's log reads a run's alike.
 */
function runContext(kernel: Kernel, name: string, envelope: JobEnvelope): RequestContext {
  const headers = envelope.traceparent === undefined ? {} : { traceparent: envelope.traceparent }
  return new RequestContext(
    kernel,
    { method: 'JOB', url: `/_jobs/${name}`, headers, body: undefined, secure: false, ip: '' },
    new EventLog(),
  )
}

/** What running one attempt needs from the worker. */
export interface Attempt {
  readonly kernel: Kernel
  readonly job: JobDefinition<never>
  readonly row: PgBoss.JobWithMetadata<JobEnvelope>
  /**
   * The attempt's signal, shared by its batch (every attempt of a batch started together, with
   * one timeout): aborted at the job's timeout or when the worker's drain time is up.
   */
  readonly signal: AbortSignal
  progress(id: string, done: number, total: number | undefined): Promise<void>
}

/**
 * Runs one attempt in its context: `job.started`, the handler (given up at its timeout or when
 * the worker's drain time is up), then `exception.raised` on failure and `job.completed`.
 * Resolves with the run, never rejects.
 */
export async function runAttempt(a: Attempt): Promise<FinishedRun> {
  const { job, row } = a
  const envelope = row.data ?? ({ payload: undefined } as JobEnvelope)
  const context = runContext(a.kernel, job.name, envelope)
  const attempt = row.retryCount + 1
  const startedAt = Date.now()
  context.log.record('job.started', {
    name: job.name,
    id: row.id,
    attempt,
    request: envelope.request,
  })
  const run: JobRun = {
    id: row.id,
    name: job.name,
    attempt,
    signal: a.signal,
    context,
    progress: (done, total) => a.progress(row.id, done, total),
  }
  let error: unknown
  try {
    await runInContext(context, () =>
      raceAbort(job.handler(envelope.payload as never, run), a.signal),
    )
  } catch (thrown) {
    error = thrown
  }
  const status =
    error === undefined ? 'completed' : attempt > row.retryLimit ? 'failed' : 'retrying'
  if (error !== undefined)
    context.log.record('exception.raised', {
      name: (error as Error)?.name ?? 'Error',
      message: messageOf(error),
      code: (error as { code?: string })?.code,
      status: 500,
    })
  const duration = context.log.now()
  context.log.record('job.completed', {
    name: job.name,
    id: row.id,
    status,
    duration,
    error: error === undefined ? undefined : messageOf(error),
  })
  return {
    name: job.name,
    id: row.id,
    attempt,
    status,
    context,
    startedAt,
    duration,
    envelope,
    error,
  }
}

/** Settles with `work`, or rejects with the signal's reason once it aborts. */
function raceAbort(work: void | Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error)
    signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(work).then(
      () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error as Error)
      },
    )
  })
}

/** What pg-boss keeps as the failed attempt's output: its message, never a stack. */
export function failureOf(error: unknown): AttemptFailure {
  return { name: (error as Error)?.name ?? 'Error', message: messageOf(error) }
}
