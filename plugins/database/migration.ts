// The base class of a migration written as a class, and the class a `defineMigration()` migration
// becomes: what fw's migration runner (migration-runner.ts) instantiates and runs. Only types come
// from MikroORM here, so importing this module (the plugin's barrel does) loads nothing more.
import type { Configuration, Transaction } from '@mikro-orm/core'
import type { AbstractSqlDriver, Knex, SqlEntityManager } from '@mikro-orm/knex'
import { isSqlMigration, type MigrationSteps, type SqlMigration } from './define-migration.js'
import { databaseErrors } from './errors.js'

/** A statement a migration queues: SQL text, or a knex query builder or raw query. */
export type MigrationQuery = string | Knex.QueryBuilder | Knex.Raw

/**
 * A migration as a class: `up()` (and `down()` to be revertible) queue statements with
 * `this.addSql(…)`, which run in order in the migration's transaction once the method returns;
 * `this.execute(…)` runs one at once, in that transaction. The same members as MikroORM's
 * `Migration`, so a migration written against it changes only its import line.
 *
 * @example
 * import { Migration } from 'fw/plugins/database'
 *
 * export class CreateNotes extends Migration {
 *   override up(): void {
 *     this.addSql('create table "notes" ("id" serial primary key, "body" text not null)')
 *   }
 *   override down(): void {
 *     this.addSql('drop table "notes"')
 *   }
 * }
 * // migrations: [{ name: '20260101000000_create_notes', class: CreateNotes }]
 */
export abstract class Migration {
  readonly #queries: MigrationQuery[] = []
  #em: SqlEntityManager | undefined
  /** The transaction the migration runs in (unset when it is not transactional). */
  protected ctx?: Transaction<Knex.Transaction> | undefined

  constructor(
    protected readonly driver: AbstractSqlDriver,
    protected readonly config: Configuration,
  ) {}

  /** Queues (or runs) what migrating up does. */
  abstract up(): Promise<void> | void

  /** Queues what reverting does; without an override the migration cannot be reverted. */
  down(): Promise<void> | void {
    throw new Error('This migration cannot be reverted')
  }

  /**
   * Whether the migration runs in a transaction of its own (a savepoint of the run's); override
   * to answer false for a statement PostgreSQL refuses in one (`create index concurrently`).
   */
  isTransactional(): boolean {
    return true
  }

  /** Queues a statement, run after `up()`/`down()` returns, in the order queued. */
  addSql(sql: MigrationQuery): void {
    this.#queries.push(sql)
  }

  /** Forgets the queued statements and the transaction: the runner calls it before each run. */
  reset(): void {
    this.#queries.length = 0
    this.ctx = undefined
    this.#em = undefined
  }

  setTransactionContext(ctx: Transaction<Knex.Transaction> | undefined): void {
    this.ctx = ctx
  }

  /**
   * Runs a statement now, in the migration's transaction, and answers its rows; `params` bind the
   * `?` placeholders of SQL text.
   */
  async execute<Row extends object = Record<string, unknown>>(
    sql: MigrationQuery,
    params?: readonly unknown[],
  ): Promise<Row[]> {
    return this.driver.execute<Row[]>(sql, params === undefined ? [] : [...params], 'all', this.ctx)
  }

  /** knex, to build a statement for {@link addSql} or {@link execute}. */
  getKnex(): Knex {
    return this.driver.getConnection('write').getKnex()
  }

  /** An EntityManager in the migration's transaction (one per run). */
  getEntityManager(): SqlEntityManager {
    if (this.#em === undefined) {
      this.#em = this.driver.createEntityManager() as SqlEntityManager
      this.#em.setTransactionContext(this.ctx)
    }
    return this.#em
  }

  /** The statements queued so far. */
  getQueries(): MigrationQuery[] {
    return this.#queries
  }
}

/** A migration written as a class: `{ name, class }`, the class extending fw's `Migration`. */
export interface MigrationObject {
  /** Unique among the app's migrations, recorded in `fw_migrations` once it ran: never rename it. */
  readonly name: string
  readonly class: new (driver: AbstractSqlDriver, config: Configuration) => Migration
}

/**
 * One migration: `{ name, class }` (a class extending `Migration`), or SQL statements made by
 * `defineMigration`.
 */
export type MigrationEntry = MigrationObject | SqlMigration

/** Whether a migration class left `down()` as {@link Migration}'s, which refuses to revert. */
export function isIrreversible(migration: MigrationObject): boolean {
  return migration.class.prototype.down === Migration.prototype.down
}

/**
 * Whether a migration is not written yet: a `defineMigration()` one whose `up` is an empty list
 * (what `fw make:migration` writes before its SQL is filled in). It is never run nor recorded, and
 * the migrations after it wait for it (migration-runner.ts `migrateUp`), so that its SQL, once
 * written, runs in order (test/cli/unwritten-migration.test.ts).
 */
export function isUnwritten(migration: MigrationObject): boolean {
  return (migration.class as { unwritten?: unknown }).unwritten === true
}

/** Queues a `defineMigration()` migration's steps on the running migration. */
async function addSteps(migration: Migration, steps: MigrationSteps): Promise<void> {
  if (typeof steps === 'function') await steps((statement) => migration.addSql(statement))
  else for (const statement of steps) migration.addSql(statement)
}

/**
 * A migration as the runner takes it: `{ name, class }` as given (once its class is checked to
 * extend {@link Migration}: `FW_ERR_DATABASE_MIGRATION_INVALID` otherwise), or, for a
 * `defineMigration()` one, a class that queues its statements; without `down` it keeps
 * {@link Migration}'s `down()`, which refuses to revert.
 */
export function migrationObjectOf(entry: MigrationEntry): MigrationObject {
  if (!isSqlMigration(entry)) {
    const cls: unknown = (entry as Partial<MigrationObject>).class
    if (typeof cls !== 'function' || !(cls.prototype instanceof Migration))
      throw databaseErrors.error('FW_ERR_DATABASE_MIGRATION_INVALID', {
        name: JSON.stringify(entry.name),
        problem:
          "its `class` must extend `Migration` imported from 'fw/plugins/database' (a class extending MikroORM's `Migration` changes its import line)",
      })
    return entry
  }
  const { up, down } = entry
  const unwritten = Array.isArray(up) && up.length === 0
  class SqlStatements extends Migration {
    static readonly unwritten = unwritten
    override async up(): Promise<void> {
      await addSteps(this, up)
    }
  }
  if (down !== undefined) {
    SqlStatements.prototype.down = async function (this: Migration): Promise<void> {
      await addSteps(this, down)
    }
  }
  return { name: entry.name, class: SqlStatements }
}
