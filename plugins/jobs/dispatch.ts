import { createRequire } from 'node:module'
import type * as MikroCore from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { currentContext, type RequestContext } from 'fw'
import type PgBoss from 'pg-boss'
import type { JobDefinition } from './define-job.js'
import { jobsErrors } from './errors.js'
import { sendDefaultsOf } from './queue.js'
import { ormExecutor } from './sql-executor.js'
import type { DispatchOptions } from './types.js'

/**
 * What a job's row holds: the payload, and where it came from (the dispatching request's id and
 * trace), so that its run links back to the request (toolbar, telemetry).
 */
export interface JobEnvelope<P = unknown> {
  readonly payload: P
  readonly request?: string
  readonly traceparent?: string
}

/** The request or run that dispatches, as the envelope names it. */
export interface Origin {
  readonly request: string | undefined
  readonly traceparent: string | undefined
}

/**
 * MikroORM's core, required on the first dispatch rather than imported with the plugin: an app
 * that registers the jobs plugin loads no ORM to list its routes
 * (test/cli/route-list-loads.test.ts, on the playground, which registers it).
 */
const mikroCore = (): typeof MikroCore =>
  createRequire(import.meta.url)('@mikro-orm/core') as typeof MikroCore

/** The transaction a dispatch joins: the option's, else MikroORM's current one, else none. */
export function transactionOf(options: DispatchOptions | undefined): EntityManager | undefined {
  const em =
    options?.em ?? (mikroCore().TransactionContext.getEntityManager() as EntityManager | undefined)
  return em !== undefined && em.isInTransaction() ? em : undefined
}

function checked(job: JobDefinition<never>, payload: unknown, options?: DispatchOptions) {
  const refuse = (problem: string) =>
    jobsErrors.error('FW_ERR_JOBS_DISPATCH_INVALID', { name: job.name, problem })
  const { delay, at, key } = options ?? {}
  if (delay !== undefined && !(Number.isInteger(delay) && delay >= 0))
    throw refuse('`delay` must be a whole number of seconds from 0')
  if (at !== undefined && !(at instanceof Date && Number.isFinite(at.getTime())))
    throw refuse('`at` must be a valid Date')
  if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > 255))
    throw refuse('`key` must be a string of 1 to 255 characters')
  let serialised: string | undefined
  try {
    serialised = JSON.stringify(payload)
  } catch (error) {
    throw refuse(`the payload is not JSON (${(error as Error).message})`)
  }
  if (serialised === undefined) throw refuse('the payload is not JSON (undefined or a function)')
}

/**
 * Enqueues one job with pg-boss's `send`: in the caller's transaction when there is one (pg-boss
 * runs its insert on the `db` it is given), and records `job.dispatched` in the current request's
 * (or run's) log. Answers the id, or null for a duplicate `unique` job.
 */
export async function dispatchJob(
  boss: PgBoss,
  job: JobDefinition<never>,
  payload: unknown,
  options: DispatchOptions | undefined,
  origin: (ctx: RequestContext | undefined) => Origin,
): Promise<string | null> {
  checked(job, payload, options)
  const ctx = currentContext()
  const from = origin(ctx)
  const envelope: JobEnvelope = {
    payload,
    ...(from.request === undefined ? {} : { request: from.request }),
    ...(from.traceparent === undefined ? {} : { traceparent: from.traceparent }),
  }
  const trx = transactionOf(options)
  const delay = options?.delay ?? 0
  const send: PgBoss.SendOptions = {
    ...sendDefaultsOf(job),
    ...(options?.at !== undefined
      ? { startAfter: options.at }
      : delay > 0
        ? { startAfter: delay }
        : {}),
    ...(options?.key === undefined ? {} : { singletonKey: options.key }),
    ...(trx === undefined ? {} : { db: ormExecutor(trx) as PgBoss.Db }),
  }
  const id = await boss.send(job.name, envelope as object, send)
  ctx?.log.record('job.dispatched', { name: job.name, id, key: options?.key, delay })
  return id
}
