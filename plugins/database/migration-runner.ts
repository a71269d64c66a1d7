// fw's migration runner: the `fw_migrations` table (the one MikroORM's migrator kept, read and
// written the same way, so a database it migrated needs nothing done) and running migrations up or
// down. A run is one transaction, each migration in a savepoint of it (MikroORM's default:
// `transactional` and `allOrNothing`): one that fails rolls the whole run back; a migration that
// is not transactional runs between transactions (`runSteps`). Guarded by
// test/plugins/database/migration-runner.test.ts; callers hold the migration lock (prepare.ts).
import { parse } from 'node:path'
import type { MikroORM, Transaction } from '@mikro-orm/core'
import type { AbstractSqlDriver, Knex } from '@mikro-orm/knex'
import { isUnwritten, type Migration, type MigrationQuery } from './migration.js'
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

/** A migration of a run: its entry (name, class) and the instance that runs. */
interface Step {
  readonly entry: MigrationObject
  readonly migration: Migration
}

/**
 * Runs `method` of `steps` in order, calling `record` after each in the same transaction. The
 * steps go in as few transactions as their `isTransactional()` allows: consecutive transactional
 * ones share one, each in a savepoint of it, so that one failing rolls them all back; one that is
 * not transactional ends the transaction before it (what ran before it is committed), runs and is
 * recorded on its own, and the steps after it start a new one.
 */
async function runSteps(
  orm: MikroORM,
  steps: readonly Step[],
  method: 'up' | 'down',
  record: (entry: MigrationObject, trx: Trx) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < steps.length;) {
    const first = steps[i]!
    if (!first.migration.isTransactional()) {
      await runOne(orm, first, method, undefined)
      await record(first.entry, undefined)
      i++
      continue
    }
    let end = i
    while (end < steps.length && steps[end]!.migration.isTransactional()) end++
    const together = steps.slice(i, end)
    await orm.em.getConnection().transactional(async (trx) => {
      for (const step of together) {
        await runOne(orm, step, method, trx)
        await record(step.entry, trx)
      }
    })
    i = end
  }
}

/** Runs `method` of one migration, in a savepoint of `trx` when given; its name in the error. */
async function runOne(
  orm: MikroORM,
  { entry, migration }: Step,
  method: 'up' | 'down',
  trx: Trx,
): Promise<void> {
  const driver = orm.em.getDriver() as AbstractSqlDriver
  migration.reset()
  const run = async (tx: Trx) => {
    migration.setTransactionContext(tx)
    for (const sql of await queriesOf(orm, migration, method))
      await driver.execute(sql, [], 'all', tx)
  }
  try {
    if (trx === undefined) await run(undefined)
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

/** Each entry with the instance that runs it. */
function stepsOf(orm: MikroORM, entries: readonly MigrationObject[]): Step[] {
  const driver = orm.em.getDriver() as AbstractSqlDriver
  return entries.map((entry) => ({ entry, migration: new entry.class(driver, orm.config) }))
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

/** What {@link migrateUp} did. */
export interface MigratedUp {
  /** The names run, in order. */
  readonly migrated: string[]
  /**
   * The pending migrations from the first one not written yet (`isUnwritten`: its `up` has no
   * statements) on: not run, so that the order stays the order written. Empty when none waits.
   */
  readonly waiting: string[]
}

/**
 * Runs every migration of `migrations` (in their order) that the table does not record, up to
 * the first one not written yet, recording each (in as few transactions as {@link runSteps}
 * allows); creates the table first if it must.
 */
export async function migrateUp(
  orm: MikroORM,
  migrations: readonly MigrationObject[],
): Promise<MigratedUp> {
  await ensureMigrationsTable(orm)
  const ran = new Set((await executedMigrations(orm)).map((m) => m.name))
  const pending = migrations.filter((m) => !ran.has(migrationName(m.name)))
  const stop = pending.findIndex(isUnwritten)
  const runnable = stop === -1 ? pending : pending.slice(0, stop)
  await runSteps(orm, stepsOf(orm, runnable), 'up', (entry, trx) =>
    execute(
      orm,
      `insert into ${tableOf(orm)} ("name") values (?)`,
      [migrationName(entry.name)],
      trx,
    ),
  )
  return {
    migrated: runnable.map((m) => migrationName(m.name)),
    waiting: (stop === -1 ? [] : pending.slice(stop)).map((m) => migrationName(m.name)),
  }
}

/**
 * Reverts `migrations` in the order given (newest first), removing each from the table (spelt
 * with or without an extension), in as few transactions as {@link runSteps} allows. Answers the
 * names reverted.
 */
export async function migrateDown(
  orm: MikroORM,
  migrations: readonly MigrationObject[],
): Promise<string[]> {
  await runSteps(orm, stepsOf(orm, migrations), 'down', (entry, trx) => {
    const name = migrationName(entry.name)
    return execute(
      orm,
      `delete from ${tableOf(orm)} where "name" in (?, ?, ?, ?)`,
      [entry.name, name, `${name}.js`, `${name}.ts`],
      trx,
    )
  })
  return migrations.map((m) => migrationName(m.name))
}
