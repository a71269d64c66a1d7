import type { MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { Availability } from './availability.js'
import type { Statement } from './bound-query.js'
import type { DatabaseTarget } from './connection-url.js'
import type { MigrationState, Migrations, Seed } from './lifecycle.js'
import type { ListeningHandler, NotificationHandler, NotifyOptions } from './notifications.js'
import type { EntityDeclaration } from './deferred-entity.js'
import type { DeclaredEntity } from './entity-owners.js'
import type { PrepareResult } from './prepare.js'
import type { SqlStatement } from './sql.js'
import type { RequestContext } from 'fw'

// The database plugin's public types: its options, its API (`kernel.plugin('database')`) and its
// config keys, declared on fw's registries.

/** Options of the database plugin. */
export interface DatabaseOptions {
  /** Entities: MikroORM `EntitySchema`s, or `deferEntity()`s whose schema is built on opening. */
  entities: readonly EntityDeclaration[]
  /** Migrations: `defineMigration({ name, up, down? })` or MikroORM's `{ name, class }`. */
  migrations?: Migrations
  /** The database URL; default config `database.url` (`DATABASE_URL`), else `pglite://memory`. */
  url?: string
  /**
   * Fills an empty database; runs after migrations under the same lock, so it runs once however
   * many processes start together. Returns whether it wrote anything.
   */
  seed?: Seed
  /**
   * Migrate and seed when the kernel starts listening (default true). When the database cannot
   * be reached then, the app listens anyway and retries in the background (see `availability()`).
   */
  prepareOnListen?: boolean
  /**
   * Turn the kernel's request scope on (default true), so that `em()`, `sql`, `query` and
   * `runStatement` find the request after an `await` too. On Node 20 the scope costs every
   * promise of the process some bookkeeping while a request is in flight; an app that reaches the
   * database through `forRequest(ctx)` only can turn it off (README.md "Without the request
   * scope"). Another plugin may still turn it on (logging, debug in development).
   */
  requestScope?: boolean
}

/**
 * The database as one request sees it (`db.forRequest(ctx)`): the request's EntityManager and the
 * fast read path, recorded in that request's log and run in its transaction, found from `ctx`
 * rather than through the request scope.
 */
export interface RequestDatabase {
  /** The request's EntityManager (forked on first use, one per request). */
  em(): EntityManager
  /** {@link DatabaseApi.sql} for this request. */
  sql<Row extends object = Record<string, unknown>>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Promise<Row[]>
  /** {@link DatabaseApi.query} for this request. */
  query<Row extends object>(statement: SqlStatement<Row>): Promise<Row[]>
  /** {@link DatabaseApi.runStatement} for this request. */
  runStatement(statement: Statement): Promise<Record<string, unknown>[]>
}

/** What `kernel.plugin('database')` returns. */
export interface DatabaseApi {
  /** The ORM, once the database is open (`await ready()`; serving and requests open it). */
  readonly orm: MikroORM
  readonly target: DatabaseTarget
  /** The current request's EntityManager; outside a request, a fresh fork. */
  em(): EntityManager
  /**
   * The database as `ctx` sees it: what `em()`, `sql`, `query` and `runStatement` do in the
   * current request, for this one, without consulting the request scope. The way to the database
   * with `requestScope: false`, and a little cheaper with it.
   *
   * @example
   * kernel.router.get('worlds/:id', async (ctx) => {
   *   const id = Number(ctx.params.id)
   *   const [world] = await db.forRequest(ctx).sql`select * from world where id = ${id}`
   *   return world ?? {}
   * })
   */
  forRequest(ctx: RequestContext): RequestDatabase
  /** An entity's data export (README.md "API", `toData`). */
  toData(entity: object): Record<string, unknown>
  /**
   * Runs one raw SQL statement, its `?` placeholders bound in order to `bindings` (never put values
   * in the SQL text), on `em` (in its transaction if it has one; without `em`, as `sql` runs: in
   * the transaction the calling code runs in, else on the read pool), and records a `query.executed` event in the request's log. Answers the rows; fails with a
   * `StatementError` carrying the database's message and SQLSTATE, or, before sending anything,
   * with the `FW_ERR_DATABASE_INVALID_INPUT` 400 `HttpError` when a value holds a NUL (U+0000).
   *
   * @example
   * const rows = await kernel.plugin('database').runStatement({
   *   sql: 'select id, name from products where price < ?',
   *   bindings: [10],
   * })
   */
  runStatement(statement: Statement, em?: EntityManager): Promise<Record<string, unknown>[]>
  /**
   * Runs a statement written as a tagged template: every `${value}` is a bound parameter (`$1`,
   * `$2`…), never SQL text. The fast read path: no EntityManager, no unit of work, no hydration;
   * on PostgreSQL a template's statement is prepared once per connection of the plugin's read
   * pool, then only bound and executed. Inside `em.transactional()` (or a request whose
   * EntityManager began a transaction) it runs in that transaction. Records a `query.executed`
   * event; refuses a NUL (U+0000) before sending (the `FW_ERR_DATABASE_INVALID_INPUT` 400); fails
   * with a `StatementError`. `Row` types the rows (the SELECT list is yours to match).
   *
   * @example
   * const [world] = await db.sql<{ id: number; randomNumber: number }>`
   *   select id, randomnumber as "randomNumber" from world where id = ${id}`
   */
  sql<Row extends object = Record<string, unknown>>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Promise<Row[]>
  /**
   * Runs a statement built beforehand with the exported `sql` tag (fragments, `sql.join`,
   * `sql.identifier`), as {@link DatabaseApi.sql} runs one; with `em`, in its transaction if it
   * has one.
   *
   * @example
   * const byIds = (ids: number[]) => sql<Product>`select * from products where id in (${sql.join(ids)})`
   * const rows = await db.query(byIds([1, 2, 3]))
   */
  query<Row extends object>(statement: SqlStatement<Row>, em?: EntityManager): Promise<Row[]>
  /** Opens the database (MikroORM, drivers) if it is not open yet; idempotent. */
  ready(): Promise<void>
  /** Runs pending migrations and the seed under the advisory lock. */
  prepare(): Promise<PrepareResult>
  /**
   * Executed and pending migration names (executed in the order they ran, pending in the order
   * they would); `unwritten`: the pending ones not written yet (their `up` has no statements),
   * which no run records (absent when there is none). Reads only: fails with
   * `FW_ERR_DATABASE_MISSING` when the database does not exist, and creates no migrations table.
   */
  status(): Promise<{ executed: string[]; pending: string[]; unwritten?: string[] }>
  /** Fails with `FW_ERR_DATABASE_MISSING` when the database does not exist; creates nothing. */
  assertExists(): Promise<void>
  /**
   * Reverts the last `step` (default 1) migrations that ran, newest first, in one transaction
   * under the migration lock; answers their names. Refuses before reverting anything
   * (`FW_ERR_DATABASE_MIGRATION_IRREVERSIBLE`) when one has no `down`.
   */
  rollback(step?: number): Promise<string[]>
  /**
   * Drops every object of the database's current schema, then runs every migration, and the
   * seeds with `seed: true` (README.md "Commands").
   */
  fresh(options?: { seed?: boolean }): Promise<PrepareResult>
  /**
   * Runs the seeds now, whatever the database holds (each seed decides what to write), under the
   * migration lock; answers whether any wrote. Fails while a migration is pending.
   */
  seed(): Promise<boolean>
  /**
   * Every migration the app knows with its state, oldest first (`executed_at` null: pending), as
   * last read: when the database was prepared (at listen, `fw migrate`) or its status asked; `[]`
   * before. The debug payload's `migrations` is this list.
   */
  migrations(): readonly MigrationState[]
  /** Adds entities (a plugin's own tables); only during setup, before the database opens at boot. */
  addEntities(...entities: EntityDeclaration[]): void
  /**
   * Every entity of the app by class name, and the plugin that added it (none: the `entities`
   * option, the app's own); complete once the kernel booted. `fw make:entity` refuses a taken name.
   */
  entities(): readonly DeclaredEntity[]
  /**
   * Adds migrations, run with everyone's in one order (README.md "Migration order": a plugin's
   * after those of the plugins it depends on, the app's last, then by timestamp); only during setup.
   */
  addMigrations(migrations: Migrations): void
  /** Adds a seed, run after the options' seed under the same lock; only during setup. */
  addSeed(seed: Seed): void
  /**
   * Whether the app could reach its database: `waiting` from a start that found it unreachable
   * until the background retries have connected, migrated and seeded; `ready` otherwise.
   */
  availability(): Availability
  /**
   * Hands `handler` the payload of every `NOTIFY` on `channel` (PostgreSQL `LISTEN` on a dedicated
   * connection, opened on the first call, re-established with a capped backoff); `onListening`
   * hears when it is and is not listening. Answers whether notifications can arrive at all: false
   * on PGlite (one process owns the database, so there is no other instance to hear from).
   *
   * @example
   * db.subscribe('app_cache', (key) => cache.delete(key))
   */
  subscribe(channel: string, handler: NotificationHandler, onListening?: ListeningHandler): boolean
  /**
   * Sends `NOTIFY channel, payload` (`select pg_notify(…)`, both bound). With `confirmMs`, waits
   * until every listening connection of the database ran its handlers for it, and answers whether
   * all did in time; without, answers true. A no-op on PGlite (answers true: no one else listens).
   *
   * @example
   * await db.notify('app_cache', key, { confirmMs: 500 })
   */
  notify(channel: string, payload: string, options?: NotifyOptions): Promise<boolean>
}

declare module 'fw' {
  interface PluginApis {
    database: DatabaseApi
  }
  interface FwConfig {
    database: {
      /** `postgresql://…`, `pglite://memory` or `pglite://<dir>`; `DATABASE_URL` overrides it. */
      url: string | undefined
      /** Seconds to wait for a database connection (opening one, or a free one); 0: no limit. */
      acquire_timeout: number
      /** Seconds a statement may run (enforced by the server and the client); 0: no limit. */
      statement_timeout: number
      /** Run an embedded PGlite database in a worker thread, off the event loop (default true). */
      pglite_worker: boolean
    }
  }
}
