// fw's migration runner: the `fw_migrations` table (the one MikroORM's migrator kept, read and
// written the same way, so a database it migrated needs nothing done) and running migrations up or
// down. A run is one transaction, each migration in a savepoint of it (MikroORM's default:
// `transactional` and `allOrNothing`): one that fails rolls the whole run back. Guarded by
// test/plugins/database/migration-runner.test.ts; callers hold the migration lock (prepare.ts).
import { parse } from 'node:path'
import type { MikroORM, Transaction } from '@mikro-orm/core'
import type { AbstractSqlDriver, Knex } from '@mikro-orm/knex'
import type { Migration, MigrationQuery } from './migration.js'
import type { MigrationObject } from './migration-types.js'

/** Where the executed migrations are recorded, in the database's schema. */
export const MIGRATIONS_TABLE = 'fw_migrations'

/** A row of the migrations table: `executed_at` as the driver gives it. */
export interface ExecutedMigration {
  readonly name: string
  readonly executed_at: Date | string
}

/**
 * A name as recorded and compared: without a `.js` or `.ts` extension (MikroORM's migrator stored
 * and compared names so, `path.parse` included).
 */
export function migrationName(name: string): string {
  const parsed = parse(name)
  return parsed.ext === '.js' || parsed.ext === '.ts' ? parsed.name : name
}

/** The migrations table, quoted with its schema: `"public"."fw_migrations"`. */
function tableOf(orm: MikroORM): string {
  const schema = orm.config.get('schema') ?? orm.em.getPlatform().getDefaultSchemaName() ?? 'public'
  return `"${schema}"."${MIGRATIONS_TABLE}"`
}

type Trx = Transaction<Knex.Transaction> | undefined

function execute<T>(orm: MikroORM, sql: string, params: unknown[] = [], trx?: Trx): Promise<T> {
  return (orm.em.getDriver() as AbstractSqlDriver).execute(sql, params, 'all', trx) as Promise<T>
}

/** Whether the migrations table exists; reads only. */
export async function hasMigrationsTable(orm: MikroORM, trx?: Trx): Promise<boolean> {
  const [found] = await execute<{ present: boolean }[]>(
    orm,
    'select to_regclass(?) is not null as present',
    [tableOf(orm)],
    trx,
  )
  return found?.present === true
}

/** The executed migrations, in the order they ran (`id`), names without extension. */
export async function executedMigrations(orm: MikroORM, trx?: Trx): Promise<ExecutedMigration[]> {
  if (!(await hasMigrationsTable(orm, trx))) return []
  const rows = await execute<ExecutedMigration[]>(
    orm,
    `select name, executed_at from ${tableOf(orm)} order by id`,
    [],
    trx,
  )
  return rows.map((row) => ({ name: migrationName(row.name), executed_at: row.executed_at }))
}

/** Creates the migrations table unless it exists, with MikroORM's columns. */
async function ensureMigrationsTable(orm: MikroORM): Promise<void> {
  if (await hasMigrationsTable(orm)) return
  const schema = orm.config.get('schema')
  if (schema !== undefined) await execute(orm, `create schema if not exists "${schema}"`)
  await execute(
    orm,
    `create table ${tableOf(orm)} ("id" serial primary key, "name" varchar(255), "executed_at" timestamptz default CURRENT_TIMESTAMP)`,
  )
}

/** Runs `method` of one migration in the run's transaction `trx`; its name in the error. */
async function runOne(
  orm: MikroORM,
  entry: MigrationObject,
  method: 'up' | 'down',
  trx: Trx,
): Promise<void> {
  const driver = orm.em.getDriver() as AbstractSqlDriver
  const migration = new entry.class(driver, orm.config)
  migration.reset()
  const run = async (tx: Trx) => {
    migration.setTransactionContext(tx)
    for (const sql of await queriesOf(orm, migration, method))
      await driver.execute(sql, [], 'all', tx)
  }
  try {
    // A migration that is not transactional runs outside the run's transaction, as with MikroORM.
    if (!migration.isTransactional()) await run(undefined)
    else
      await orm.em
        .getConnection()
        .transactional((tx) => run(tx), { ctx: trx as Knex.Transaction | undefined })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`Migration ${migrationName(entry.name)} (${method}) failed: ${reason}`, {
      cause: error,
    })
  }
}

/** What a migration's method queued, after the platform's schema prelude (`set names …`). */
async function queriesOf(
  orm: MikroORM,
  migration: Migration,
  method: 'up' | 'down',
): Promise<MigrationQuery[]> {
  await migration[method]()
  const helper = (orm.em.getDriver() as AbstractSqlDriver).getPlatform().getSchemaHelper()
  const charset = orm.config.get('charset') ?? 'utf8'
  return [
    ...(helper?.getSchemaBeginning(charset, false).split('\n') ?? []),
    ...migration.getQueries(),
    ...(helper?.getSchemaEnd(false).split('\n') ?? []),
  ].filter((sql) => typeof sql !== 'string' || sql.trim().length > 0)
}

/**
 * Runs every migration of `migrations` (in their order) that the table does not record, in one
 * transaction, recording each; creates the table first if it must. Answers the names run.
 */
export async function migrateUp(
  orm: MikroORM,
  migrations: readonly MigrationObject[],
): Promise<string[]> {
  await ensureMigrationsTable(orm)
  return orm.em.getConnection().transactional(async (trx) => {
    const ran = new Set((await executedMigrations(orm, trx)).map((m) => m.name))
    const pending = migrations.filter((m) => !ran.has(migrationName(m.name)))
    for (const migration of pending) {
      await runOne(orm, migration, 'up', trx)
      await execute(
        orm,
        `insert into ${tableOf(orm)} ("name") values (?)`,
        [migrationName(migration.name)],
        trx,
      )
    }
    return pending.map((m) => migrationName(m.name))
  })
}

/**
 * Reverts `migrations` in the order given (newest first), in one transaction, removing each from
 * the table (spelt with or without an extension). Answers the names reverted.
 */
export async function migrateDown(
  orm: MikroORM,
  migrations: readonly MigrationObject[],
): Promise<string[]> {
  return orm.em.getConnection().transactional(async (trx) => {
    for (const migration of migrations) {
      await runOne(orm, migration, 'down', trx)
      const name = migrationName(migration.name)
      await execute(
        orm,
        `delete from ${tableOf(orm)} where "name" in (?, ?, ?, ?)`,
        [migration.name, name, `${name}.js`, `${name}.ts`],
        trx,
      )
    }
    return migrations.map((m) => migrationName(m.name))
  })
}
