import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { Kernel } from 'fw'
import type { DatabaseApi } from 'fw/plugins/database'
import type PgBoss from 'pg-boss'
import { loadPgBoss } from './library.js'
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
function optionsOf(
  settings: QueueSettings,
  worker: boolean,
  em: EntityManager | undefined,
): PgBoss.ConstructorOptions {
  const { kernel, db, schema } = settings
  const config = kernel.config.jobs
  const connection: PgBoss.ConstructorOptions =
    db.target.kind === 'postgresql'
      ? { connectionString: db.target.url, max: worker ? 4 : 2, application_name: 'fw-jobs' }
      : { db: ormExecutor(em ?? (db.orm.em.fork() as unknown as EntityManager)) as PgBoss.Db }
  return {
    ...connection,
    schema,
    migrate: false,
    // Maintenance (expired attempts failed, old jobs archived) and the cron clock run where jobs
    // run; a process that only dispatches opens no timers.
    supervise: worker,
    schedule: worker,
    maintenanceIntervalSeconds: config.maintenance_interval,
    // How soon after its minute a tick is sent, and its job picked up from pg-boss's cron queue.
    cronMonitorIntervalSeconds: config.cron_interval,
    cronWorkerIntervalSeconds: Math.min(config.cron_interval, 5),
    archiveFailedAfterSeconds: KEEP_FAILED_S,
  }
}

/**
 * Starts a pg-boss instance; its errors go to the app's log. On PGlite its statements run on the
 * ORM's connection, or on `em`'s transaction when given.
 */
export async function openBoss(
  settings: QueueSettings,
  worker: boolean,
  em?: EntityManager,
): Promise<PgBoss> {
  await settings.db.ready()
  const PgBoss = await loadPgBoss()
  const boss = new PgBoss(optionsOf(settings, worker, em))
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

/**
 * Creates each job's queue (or brings its settings up to date), and pg-boss's own cron queue;
 * once per process. pg-boss creates a queue's partition without a lock of its own, so workers
 * starting together can deadlock there: creating is idempotent, and a deadlock is retried
 * (test/plugins/jobs/schedule.test.ts starts three at once).
 */
export async function ensureQueues(
  boss: PgBoss,
  jobs: Iterable<JobDefinition<never>>,
): Promise<void> {
  const wanted = [...jobs].map(queueOptionsOf)
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]))
      if (!existing.has(CRON_QUEUE)) await boss.createQueue(CRON_QUEUE)
      for (const queue of wanted) {
        const had = existing.get(queue.name)
        if (had === undefined) await boss.createQueue(queue.name, queue)
        else if (!sameQueue(had, queue)) await boss.updateQueue(queue.name, queue)
      }
      return
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK || attempt >= 8) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200 * attempt))
    }
  }
}

/** PostgreSQL's SQLSTATE for a deadlock. */
const DEADLOCK = '40P01'
/** The queue pg-boss's cron clock sends each tick's job through. */
const CRON_QUEUE = '__pgboss__send-it'

function sameQueue(a: PgBoss.Queue, b: PgBoss.Queue): boolean {
  return (
    a.policy === b.policy &&
    a.retryLimit === b.retryLimit &&
    a.retryDelay === b.retryDelay &&
    a.retryBackoff === b.retryBackoff &&
    a.expireInSeconds === b.expireInSeconds
  )
}
