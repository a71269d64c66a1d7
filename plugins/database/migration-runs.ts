// What the migration commands do on an open database (README.md "Commands"): read the migrations'
// state without creating anything, roll back, drop the schema's objects, run the seeds. Loaded
// when such a command runs; everything that writes holds the migration lock (prepare.ts).
import type { MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { DatabaseTarget } from './connection-url.js'
import { databaseErrors } from './errors.js'
import { isIrreversible, isUnwritten } from './migration.js'
import { executedMigrations, migrateDown, migrationName } from './migration-runner.js'
import type { MigrationObject, MigrationState } from './migration-types.js'
import { withMigrationLock } from './prepare.js'

/** An open database, as the migration commands use it. */
export interface RunTarget {
  readonly orm: MikroORM
  /** The app's migrations in the order they run (migration-order.ts). */
  readonly migrations: readonly MigrationObject[]
  readonly target: DatabaseTarget
  /** Bounds connecting for the migration lock (`database.acquire_timeout`). */
  readonly acquireMs: number
}

/**
 * Every migration with its state: those the migrations table records, in the order they ran, then
 * the app's others, pending, in the order they would run (one not written yet marked so). Reads
 * only: a database without the table has run nothing.
 */
export async function readMigrationStates(
  orm: MikroORM,
  migrations: readonly MigrationObject[],
): Promise<MigrationState[]> {
  const rows = await executedMigrations(orm)
  const ran = new Set(rows.map((r) => r.name))
  return [
    ...rows.map((r) => ({ name: r.name, executed_at: new Date(r.executed_at).toISOString() })),
    ...migrations
      .filter((m) => !ran.has(migrationName(m.name)))
      .map((m) => ({
        name: migrationName(m.name),
        executed_at: null,
        ...(isUnwritten(m) ? { unwritten: true as const } : {}),
      })),
  ]
}

/**
 * Reverts the last `step` migrations that ran, newest first, in one transaction. Before anything
 * runs, refuses (`FW_ERR_DATABASE_MIGRATION_IRREVERSIBLE`, naming it) when one of them has no
 * `down` or is not among the app's migrations. Answers the reverted names, in the order reverted.
 */
export async function rollbackMigrations(run: RunTarget, step: number): Promise<string[]> {
  return withMigrationLock(
    run.target,
    async () => {
      const executed = await executedMigrations(run.orm)
      const last = executed.slice(-step).reverse()
      const byName = new Map(run.migrations.map((m) => [migrationName(m.name), m]))
      const reverting = last.map(({ name }) => {
        const migration = byName.get(name)
        if (migration === undefined || isIrreversible(migration))
          throw databaseErrors.error('FW_ERR_DATABASE_MIGRATION_IRREVERSIBLE', {
            name,
            ...(migration === undefined ? { unknown: true } : {}),
          })
        return migration
      })
      return migrateDown(run.orm, reverting)
    },
    run.acquireMs,
  )
}

/**
 * Drops every object of the database's current schema (`public` unless the search path says
 * otherwise): views, tables (the migrations table included), sequences, types and functions,
 * except what an extension owns; one transaction, under the migration lock.
 */
export async function dropSchemaObjects(run: RunTarget): Promise<number> {
  return withMigrationLock(
    run.target,
    async () => {
      const connection = run.orm.em.getConnection()
      const rows = await connection.execute<{ statement: string }[]>(DROP_STATEMENTS)
      await connection.transactional(async (trx) => {
        for (const { statement } of rows) await connection.execute(statement, [], 'run', trx)
      })
      return rows.length
    },
    run.acquireMs,
  )
}

/** What `DROP … CASCADE` takes every object of the current schema away (none an extension's). */
const DROP_STATEMENTS = `
with own as (
  select objid from pg_depend where deptype = 'e'
)
select format('drop %s if exists %I.%I cascade',
         case c.relkind when 'v' then 'view' when 'm' then 'materialized view'
           when 'S' then 'sequence' when 'f' then 'foreign table' else 'table' end,
         n.nspname, c.relname) as statement
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
   and c.oid not in (select objid from own)
union all
select format('drop type if exists %I.%I cascade', n.nspname, t.typname)
  from pg_type t join pg_namespace n on n.oid = t.typnamespace
 where n.nspname = current_schema() and t.typtype in ('e', 'd', 'r')
   and t.oid not in (select objid from own)
union all
select format('drop routine if exists %I.%I(%s) cascade', n.nspname, p.proname,
         pg_get_function_identity_arguments(p.oid))
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
 where n.nspname = current_schema() and p.prokind in ('f', 'p')
   and p.oid not in (select objid from own)`

/**
 * Runs the seeds now, whatever the database holds (each decides what to write), under the
 * migration lock; refuses (`FW_ERR_DATABASE_MIGRATIONS_PENDING`) while a migration has not run.
 * Answers whether any wrote.
 */
export async function runSeeds(
  run: RunTarget,
  seed: ((em: EntityManager) => Promise<boolean>) | undefined,
): Promise<boolean> {
  return withMigrationLock(
    run.target,
    async () => {
      const pending = (await readMigrationStates(run.orm, run.migrations)).filter(
        (m) => m.executed_at === null,
      )
      if (pending.length > 0)
        throw databaseErrors.error('FW_ERR_DATABASE_MIGRATIONS_PENDING', {
          count: pending.length,
          first: pending[0]!.name,
          unwritten: pending[0]!.unwritten === true,
        })
      return seed === undefined ? false : seed(run.orm.em.fork() as EntityManager)
    },
    run.acquireMs,
  )
}
