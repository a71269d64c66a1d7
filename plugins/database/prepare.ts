import type { MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import pg from 'pg'
import type { DatabaseTarget } from './connection-url.js'
import { migrateUp } from './migration-runner.js'
import type { MigrationObject } from './migration-types.js'

/** The advisory-lock key fw's migrations and seeding hold (any constant; this is "fwmg" in ASCII). */
const LOCK_KEY = 0x66776d67

/** What `prepare()` did. */
export interface PrepareResult {
  /** The migrations it ran, in order. */
  readonly migrated: readonly string[]
  /** Whether the seed function ran (it decides itself whether there is anything to do). */
  readonly seeded: boolean
  /**
   * The pending migrations from the first one not written yet (its `up` has no statements) on:
   * not run, and the seeds not run either while they wait (their tables may not be there).
   * Absent when none waits.
   */
  readonly waiting?: readonly string[]
}

/**
 * Runs `fn` while holding fw's PostgreSQL advisory lock, so that processes starting together
 * against one database migrate and seed one after another, never at once. The lock is held on a
 * connection of its own and dies with it, also when the process does. PGlite is single-process:
 * no lock is needed.
 */
export async function withMigrationLock<T>(
  target: DatabaseTarget,
  fn: () => Promise<T>,
  connectTimeoutMs = 5000,
): Promise<T> {
  if (target.kind !== 'postgresql') return fn()
  // Connecting is bounded (a frozen server must not hold the start); waiting for the lock is not:
  // another process may be migrating.
  const client = new pg.Client({
    connectionString: target.url,
    connectionTimeoutMillis: connectTimeoutMs,
  })
  // A connection lost while holding the lock must not end the process: the statement fails.
  client.on('error', () => undefined)
  await client.connect()
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY])
    try {
      return await fn()
    } finally {
      await client.query('select pg_advisory_unlock($1)', [LOCK_KEY])
    }
  } finally {
    await client.end()
  }
}

/**
 * Runs pending migrations (in the order given, up to one not written yet), then the seed unless a
 * migration waits, under the lock.
 */
export async function prepareDatabase(
  orm: MikroORM,
  migrations: readonly MigrationObject[],
  target: DatabaseTarget,
  seed: ((em: EntityManager) => Promise<boolean>) | undefined,
  connectTimeoutMs?: number,
): Promise<PrepareResult> {
  return withMigrationLock(
    target,
    async () => {
      const { migrated, waiting } = await migrateUp(orm, migrations)
      const seeds = seed !== undefined && waiting.length === 0
      const seeded = seeds ? await seed(orm.em.fork() as EntityManager) : false
      return waiting.length === 0 ? { migrated, seeded } : { migrated, seeded, waiting }
    },
    connectTimeoutMs,
  )
}
