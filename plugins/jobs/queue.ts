import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { Kernel } from 'fw'
import type { DatabaseApi } from 'fw/plugins/database'
import PgBoss from 'pg-boss'
import type { JobDefinition } from './define-job.js'
import { ormExecutor } from './sql-executor.js'

/** pg-boss's `fail` keeps a failed job this long before archiving it (`fw jobs:failed` reads it). */
const KEEP_FAILED_S = 30 * 24 * 3600

/** What opening a pg-boss instance needs. */
export interface QueueSettings {
  readonly kernel: Kernel
  readonly db: DatabaseApi
  readonly schema: string
}

/**
 * The pg-boss options of one instance. On PostgreSQL pg-boss keeps a small pool of its own on the
 * app's database (its polling never waits behind the app's requests for a connection); on PGlite,
 * one process's embedded database, it runs its statements through the ORM's connection. Tables
 * come from the plugin's migration (`migrate: false`: pg-boss only checks their version).
 */
function optionsOf(settings: QueueSettings, worker: boolean): PgBoss.ConstructorOptions {
  const { kernel, db, schema } = settings
  const config = kernel.config.jobs
  const connection: PgBoss.ConstructorOptions =
    db.target.kind === 'postgresql'
      ? { connectionString: db.target.url, max: worker ? 4 : 2, application_name: 'fw-jobs' }
      : { db: ormExecutor(db.orm.em.fork() as unknown as EntityManager) as PgBoss.Db }
  return {
    ...connection,
    schema,
    migrate: false,
    // Maintenance (expired attempts failed, old jobs archived) and the cron clock run where jobs
    // run; a process that only dispatches opens no timers.
    supervise: worker,
    schedule: worker,
    maintenanceIntervalSeconds: config.maintenance_interval,
    archiveFailedAfterSeconds: KEEP_FAILED_S,
  }
}

/** Starts a pg-boss instance; its errors go to the app's log. */
export async function openBoss(settings: QueueSettings, worker: boolean): Promise<PgBoss> {
  await settings.db.ready()
  const boss = new PgBoss(optionsOf(settings, worker))
  boss.on('error', (error: Error) =>
    settings.kernel.logger.error('jobs: queue error', { error: error.message }),
  )
  await boss.start()
  return boss
}

/** The queue's settings for a job: its retries, backoff and timeout, and `unique`'s policy. */
export function queueOptionsOf(job: JobDefinition<never>): PgBoss.Queue {
  return {
    name: job.name,
    // `short`: at most one waiting job per singleton key (the dispatch `key`).
    policy: job.unique ? 'short' : 'standard',
    ...sendDefaultsOf(job),
  }
}

/**
 * Retries, backoff and expiry sent with every job, so a job runs as its definition says even
 * before its queue's row was updated. The expiry (after which maintenance retries an attempt
 * whose worker died) is the timeout plus a grace: an attempt that overruns is failed by its own
 * worker first (test/plugins/jobs/killed-worker.test.ts).
 */
export function sendDefaultsOf(job: JobDefinition<never>) {
  return {
    retryLimit: job.retries,
    retryDelay: job.backoff.delay,
    retryBackoff: job.backoff.exponential === true,
    expireInSeconds: job.timeout + EXPIRY_GRACE_S,
  }
}

/** Seconds past a job's timeout before maintenance takes its attempt back. */
export const EXPIRY_GRACE_S = 5

/** Creates each job's queue (or brings its settings up to date); once per process. */
export async function ensureQueues(
  boss: PgBoss,
  jobs: Iterable<JobDefinition<never>>,
): Promise<void> {
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]))
  for (const job of jobs) {
    const wanted = queueOptionsOf(job)
    const had = existing.get(job.name)
    if (had === undefined) await boss.createQueue(job.name, wanted)
    else if (!sameQueue(had, wanted)) await boss.updateQueue(job.name, wanted)
  }
}

function sameQueue(a: PgBoss.Queue, b: PgBoss.Queue): boolean {
  return (
    a.policy === b.policy &&
    a.retryLimit === b.retryLimit &&
    a.retryDelay === b.retryDelay &&
    a.retryBackoff === b.retryBackoff &&
    a.expireInSeconds === b.expireInSeconds
  )
}
