import { createHash } from 'node:crypto'
import type { EntityMetadata, MigrationObject, MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { performance } from 'node:perf_hooks'
import {
  currentContext,
  definePlugin,
  type FwError,
  httpErrorReply,
  maskErrorMessage,
  type Kernel,
  type RequestContext,
} from 'fw'
import { isUnavailableError, retryUntilReady, type Availability } from './availability.js'
import { runPreparedRead, runStatement, type Statement } from './bound-query.js'
import { parseDatabaseUrl, type DatabaseTarget } from './connection-url.js'
import { databaseErrorMessage, summaryOf } from './error-summary.js'
import type { SqlMigration } from './define-migration.js'
import { databaseErrors } from './errors.js'
import { databaseReadiness } from './readiness.js'
import { shareMaintenance } from './shared-maintenance.js'
import './events.js'
import { MigrateCommand } from './migrate-command.js'
import {
  PgNotifications,
  type ListeningHandler,
  type NotificationHandler,
  type NotifyOptions,
} from './notifications.js'
import type { AnyEntitySchema, DatabaseTimeouts, OpenedDatabase } from './orm.js'
import type { PrepareResult } from './prepare.js'
import type * as SerializeModuleNs from './serialize.js'
import { invalidInput, isUnstorableInputError, refuseUnstorable } from './unstorable-input.js'

type SerializeModule = typeof SerializeModuleNs

/**
 * One migration: MikroORM's `{ name, class }` (a class extending its `Migration`), or SQL
 * statements made by {@link defineMigration}, which needs no MikroORM.
 */
export type MigrationEntry = MigrationObject | SqlMigration

/**
 * Migrations (run in name order with every plugin's), or a function that imports them: a loader
 * keeps `@mikro-orm/migrations` (~0.1 s) out of processes that never migrate, such as
 * `fw route:list`.
 *
 * @example
 * migrations: () => import('./migrations/index.js').then((m) => m.migrations)
 */
export type Migrations = readonly MigrationEntry[] | (() => Promise<readonly MigrationEntry[]>)

/** Options of the database plugin. */
export interface DatabaseOptions {
  /** Entities, declared as MikroORM `EntitySchema`s. */
  entities: readonly AnyEntitySchema[]
  /** Migrations: `defineMigration({ name, up, down? })` or MikroORM's `{ name, class }`. */
  migrations?: Migrations
  /** The database URL; default config `database.url` (`DATABASE_URL`), else `pglite://memory`. */
  url?: string
  /**
   * Fills an empty database; runs after migrations under the same lock, so it runs once however
   * many processes start together. Returns whether it wrote anything.
   */
  seed?: (em: EntityManager) => Promise<boolean>
  /**
   * Migrate and seed when the kernel starts listening (default true). When the database cannot
   * be reached then, the app listens anyway and retries in the background (see `availability()`).
   */
  prepareOnListen?: boolean
}

/** What `kernel.plugin('database')` returns. */
/** A migration and its state: when it ran, or null while pending. */
export interface MigrationState {
  readonly name: string
  /** ISO 8601, or null: pending. */
  readonly executed_at: string | null
}

export interface DatabaseApi {
  /** The ORM, once the database is open (`await ready()`; serving and requests open it). */
  readonly orm: MikroORM
  readonly target: DatabaseTarget
  /** The current request's EntityManager; outside a request, a fresh fork. */
  em(): EntityManager
  /** An entity's data export (README.md "API", `toData`). */
  toData(entity: object): Record<string, unknown>
  /**
   * Runs one raw SQL statement, its `?` placeholders bound in order to `bindings` (never put values
   * in the SQL text), on `em` (default: the request's EntityManager, in its transaction if it has
   * one), and records a `query.executed` event in the request's log. Answers the rows; fails with a
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
  /** Opens the database (MikroORM, drivers) if it is not open yet; idempotent. */
  ready(): Promise<void>
  /** Runs pending migrations and the seed under the advisory lock. */
  prepare(): Promise<PrepareResult>
  /** Executed and pending migration names. */
  status(): Promise<{ executed: string[]; pending: string[] }>
  /**
   * Every migration the app knows with its state, oldest first (`executed_at` null: pending), as
   * last read: when the database was prepared (at listen, `fw migrate`) or its status asked; `[]`
   * before. The debug payload's `migrations` is this list.
   */
  migrations(): readonly MigrationState[]
  /** Adds entities (a plugin's own tables); only during setup, before the database opens at boot. */
  addEntities(...entities: AnyEntitySchema[]): void
  /** Adds migrations (run in name order with everyone's); only during setup. */
  addMigrations(migrations: Migrations): void
  /** Adds a seed, run after the options' seed under the same lock; only during setup. */
  addSeed(seed: (em: EntityManager) => Promise<boolean>): void
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
    }
  }
}

/** How a binding loads one entity by its key, worked out from the metadata on first use. */
interface BindingPlan {
  readonly meta: EntityMetadata
  /** True when the key is numeric: a value that is not digits is no record (a 404). */
  readonly numeric: boolean
  /** `select * from "<table>" where "<key column>" = ? limit 1`, identifiers from the metadata. */
  readonly sql: string
  /** The same with `$1`, and the name it is prepared under on each connection. */
  readonly text: string
  readonly name: string
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

function planOf(orm: MikroORM, className: string): BindingPlan | null {
  const meta = orm.getMetadata().find(className)
  const pk = meta?.primaryKeys.length === 1 ? meta.properties[meta.primaryKeys[0]!] : undefined
  const column = pk?.fieldNames?.[0]
  if (meta === undefined || pk === undefined || column === undefined || meta.virtual) return null
  const where = `select * from ${quoteIdentifier(meta.tableName)} where ${quoteIdentifier(column)} = `
  return {
    meta,
    numeric: ['number', 'bigint'].includes(pk.runtimeType),
    sql: `${where}? limit 1`,
    text: `${where}$1 limit 1`,
    name: `fw_bind_${createHash('sha256').update(where).digest('hex').slice(0, 16)}`,
  }
}

/**
 * A binding loader per entity, under its class name. A key the column could not hold (a numeric
 * key that is not a number) is no record: a 404, not a database error. The lookup is the hot path
 * of every `/things/{thing}` route, so it skips the query builder: the identity map first, then
 * one statement with the key as a bound parameter (on PostgreSQL a named prepared statement on a
 * pool of the plugin's own, so each connection parses it once), hydrated as `em.findOne()`
 * hydrates (the driver's mapping, then the entity factory, merged into the request's identity map).
 */
function registerBindings(
  kernel: Kernel,
  opened: () => OpenedDatabase,
  entities: readonly AnyEntitySchema[],
): void {
  for (const schema of entities) {
    const className = schema.meta.className
    let plan: BindingPlan | null | undefined
    kernel.binding(className, (value, ctx) => {
      const db = opened()
      plan ??= planOf(db.orm, className)
      const em = db.forRequest(ctx) as EntityManager
      if (plan === null) return em.findOne(className, value).then((found) => found ?? undefined)
      if (plan.numeric && !/^\d{1,15}$/.test(value)) return Promise.resolve(undefined)
      const key = plan.numeric ? Number(value) : value
      const known = em.getUnitOfWork().getById<object>(className, key)
      if (known !== undefined) return Promise.resolve(known)
      const meta = plan.meta
      const rows = runPreparedRead(
        em,
        { name: plan.name, sql: plan.sql, text: plan.text, values: [key] },
        ctx,
        db.readPool(),
      )
      return rows.then((found) => {
        const row = found[0]
        if (row === undefined) return undefined
        const data = em.getDriver().mapResult(row, meta)
        if (data === null) return undefined
        const entity = em
          .getEntityFactory()
          .create<object>(className, data, { merge: true, convertCustomTypes: true })
        ctx.log.record('model.loaded', { entity: className, id: key })
        return entity
      })
    })
  }
}

/**
 * MikroORM 6 as a plugin: PostgreSQL (`postgresql://…`) or embedded PGlite (`pglite://memory`,
 * `pglite://<dir>`), a request-scoped EntityManager, `query.*` and `model.*` events in each
 * request's log, migrations under an advisory lock, implicit route binding for every entity, and
 * `fw migrate`.
 */
export default definePlugin<DatabaseOptions, DatabaseApi>({
  name: 'database',
  config: {
    defaults: { database: { url: undefined, acquire_timeout: 5, statement_timeout: 5 } },
    schema: {
      'database.url': 'string?',
      'database.acquire_timeout': 'seconds',
      'database.statement_timeout': 'seconds',
    },
    env: { 'database.url': 'DATABASE_URL' },
  },
  setup(kernel, options) {
    kernel.useRequestScope()
    const timeouts = timeoutsOf(kernel)
    let availability: Availability = { state: 'ready', error: undefined, attempts: 0 }
    const target = parseDatabaseUrl(
      options.url ?? kernel.config.database.url ?? 'pglite://memory',
      process.cwd(),
    )
    const entities: AnyEntitySchema[] = [...options.entities]
    const migrations: Migrations[] = options.migrations ? [options.migrations] : []
    const seeds: NonNullable<DatabaseOptions['seed']>[] = options.seed ? [options.seed] : []
    let db: OpenedDatabase | undefined
    let serialize: SerializeModule | undefined
    let opening: Promise<void> | undefined
    // MikroORM, its drivers and PGlite load here, on first need (serving, a request, a command
    // that queries), never for commands that only boot the app: `fw route:list` stays fast.
    const open = (): Promise<void> =>
      (opening ??= (async () => {
        // PGlite's start (WASM compiled on V8's background threads, the data directory read or
        // created) overlaps with loading MikroORM and knex on the main thread: opening means a
        // query is coming, so the embedded database is needed anyway.
        const pglite =
          target.kind === 'pglite'
            ? import('./pglite-template.js').then((m) => m.createPglite(target.dataDir))
            : undefined
        // Without this, a failure would be unhandled until the first connection awaits it.
        pglite?.catch(() => undefined)
        const [{ openDatabase, migrationObjectOf }, serializer] = await Promise.all([
          import('./orm.js'),
          import('./serialize.js'),
        ])
        // Migrations run in name order (names start with a timestamp), whichever plugin added them.
        const loaded = (
          await Promise.all(migrations.map((m) => (typeof m === 'function' ? m() : m)))
        )
          .flat()
          .map(migrationObjectOf)
        loaded.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
        db = await openDatabase(target, entities, loaded, {
          starting: pglite,
          timeouts,
          warn: (message) => kernel.logger.warn(`database driver: ${message}`),
        })
        serialize = serializer
      })())
    const opened = (): OpenedDatabase => {
      // While a start that found no database waits for it, a request that reaches for it answers
      // 503 (it may be back but not yet migrated); the background retries are no request.
      if (availability.state === 'waiting' && currentContext() !== undefined) throw unavailable()
      if (db === undefined) {
        throw databaseErrors.error('FW_ERR_DATABASE_NOT_READY')
      }
      return db
    }
    let connected = false
    let driverStarted = false
    const connect = async (): Promise<void> => {
      await open()
      if (connected) return
      const started = performance.now()
      const orm = db!.orm
      if (!driverStarted) {
        // Once only: each `connect()` builds a new knex pool. A retry after a failure checks the
        // connection of the pool built here, which reconnects by itself.
        driverStarted = true
        await orm.connect()
      } else {
        const check = await orm.checkConnection()
        if (!check.ok) throw check.error ?? new Error(check.reason)
      }
      connected = true
      kernel.recordBootPhase('db-connect', performance.now() - started)
    }
    const seed = async (em: EntityManager): Promise<boolean> => {
      let wrote = false
      for (const run of seeds) wrote = (await run(em)) || wrote
      return wrote
    }
    const notifications =
      target.kind === 'postgresql'
        ? new PgNotifications({
            url: target.url,
            send: (sql, params) => api.em().execute(sql, params, 'all'),
            warn: (message) => kernel.logger.warn(`database: ${message}`),
          })
        : undefined
    const api: DatabaseApi = {
      get orm() {
        return opened().orm
      },
      target,
      ready: open,
      addEntities(...more) {
        if (opening !== undefined) throw tooLate('addEntities')
        entities.push(...more)
      },
      addMigrations(more) {
        if (opening !== undefined) throw tooLate('addMigrations')
        migrations.push(more)
      },
      availability: () => availability,
      addSeed(more) {
        if (opening !== undefined) throw tooLate('addSeed')
        seeds.push(more)
      },
      em: () => {
        const database = opened()
        const ctx = currentContext()
        return (
          ctx === undefined ? database.orm.em.fork() : database.forRequest(ctx)
        ) as EntityManager
      },
      toData: (entity) => {
        const orm = opened().orm
        return serialize!.toData(orm, entity)
      },
      runStatement: (statement, em) => runStatement(em ?? api.em(), statement),
      async prepare() {
        await connect()
        const { prepareDatabase } = await import('./prepare.js')
        const result = await prepareDatabase(
          db!.orm,
          target,
          seeds.length > 0 ? seed : undefined,
          timeouts.acquireMs,
        )
        await readMigrations()
        return result
      },
      async status() {
        await connect()
        const { executed, pending } = await readMigrations()
        return { executed: executed.map((m) => m.name), pending: pending.map((m) => m.name) }
      },
      migrations: () => migrationStates,
      subscribe(channel, handler, onListening) {
        notifications?.subscribe(channel, handler, onListening)
        return notifications !== undefined
      },
      notify: async (channel, payload, options) => {
        // Its confirmed send goes over the listening connection, past `onQuery`: checked here, on
        // PGlite too, so a payload answers alike on both.
        refuseUnstorable('', [channel, payload])
        return notifications === undefined ? true : notifications.notify(channel, payload, options)
      },
    }
    /** Reads the migrations' state into the snapshot `migrations()` answers. */
    let migrationStates: readonly MigrationState[] = []
    async function readMigrations() {
      const migrator = db!.orm.getMigrator()
      const executed = await migrator.getExecutedMigrations()
      const pending = await migrator.getPendingMigrations()
      migrationStates = [
        ...executed.map((m) => ({
          name: m.name,
          executed_at: new Date(m.executed_at as unknown as string | Date).toISOString(),
        })),
        ...pending.map((m) => ({ name: m.name, executed_at: null })),
      ]
      return { executed, pending }
    }
    // Bindings are declared at boot (every plugin has added its entities by then); the database
    // itself opens on the first request, or earlier when serving or when a command asks.
    kernel.hooks.boot.tapPromise({ name: 'database', stage: -100 }, async () => {
      registerBindings(kernel, opened, entities)
    })
    // Once open, a synchronous no-op: a request that does not wait for the database costs no promise.
    kernel.hooks.request.tap({ name: 'database', stage: -100 }, () =>
      db === undefined ? open().then(() => undefined) : undefined,
    )
    kernel.command(MigrateCommand)
    if (options.prepareOnListen !== false) {
      // A database that cannot be reached does not stop the start: the app listens (health says
      // why), routes that need the database answer 503, and the background retries connect,
      // migrate and seed when it comes back. Any other failure (a broken migration, an unusable
      // PGlite directory) still fails the start: waiting would not mend it.
      kernel.hooks.listen.tapPromise('database', async () => {
        try {
          await api.prepare()
        } catch (error) {
          if (!isUnavailableError(error)) throw error
          availability = { state: 'waiting', error: summaryOf(error), attempts: 1 }
          kernel.logger.warn('database unreachable at start: serving without it, retrying', {
            error: summaryOf(error),
          })
          retryUntilReady(
            async () => void (await api.prepare()),
            (failure, attempts) => {
              if (availability.state === 'closed') return
              availability = { state: 'waiting', error: summaryOf(failure), attempts: attempts + 1 }
              // The summary, not the error: its message would carry the failing statement's values.
              // `fw migrate`, run by hand, reports the database's own words.
              if (!isUnavailableError(failure))
                kernel.logger.error('database reachable but not ready', {
                  error: summaryOf(failure),
                })
            },
            () => availability.state === 'closed',
          ).then(
            (ok) => {
              if (!ok) return
              availability = { state: 'ready', error: undefined, attempts: availability.attempts }
              kernel.logger.info('database reachable again: migrated and seeded')
            },
            (error: unknown) => kernel.logger.error('retrying the database failed', { error }),
          )
        }
      })
    }
    if (target.kind === 'postgresql') shareMaintenance(kernel, api)
    // Readiness: no traffic while the database cannot be reached (`GET /health/ready`).
    kernel.readiness.add(
      'database',
      databaseReadiness(
        () => availability,
        async () => {
          const check = await api.orm.checkConnection()
          if (!check.ok) throw check.error ?? new Error(check.reason)
        },
      ),
    )
    // A statement that could not reach the database (refused, lost, timed out) answers 503 with
    // `Retry-After`, JSON or the HTML error page as the client asks, instead of a 500. A value the
    // database cannot hold answers 400 first: the client's fault, never an outage, never retried
    // (MikroORM hands the check's HttpError on wrapped in a DriverException). Any error from the
    // database is reported (the kernel's `request failed`, `exception.raised`, telemetry) by kind,
    // code and the names of what failed: its message would quote the statement's bound values.
    kernel.hooks.error.tapPromise('database', async (error, ctx) => {
      const described = error instanceof Error ? databaseErrorMessage(error) : undefined
      if (described !== undefined) maskErrorMessage(error as Error, described)
      if (isUnstorableInputError(error)) return httpErrorReply(ctx, invalidInput())
      return isUnavailableError(error) ? unavailableReply(kernel, ctx, error) : undefined
    })
    kernel.hooks.shutdown.tapPromise({ name: 'database', stage: 100 }, async () => {
      availability = { state: 'closed', error: undefined, attempts: availability.attempts }
      await notifications?.close()
      await db?.close()
    })
    return api
  },
})

/** Seconds a client is told to wait when the database is unavailable. */
const RETRY_AFTER_S = 5

function unavailable(): FwError {
  return databaseErrors.error('FW_ERR_DATABASE_UNAVAILABLE')
}

function unavailableReply(kernel: Kernel, ctx: RequestContext, error: unknown) {
  kernel.logger.warn('database unavailable', { error: summaryOf(error), path: ctx.path })
  return httpErrorReply(
    ctx,
    databaseErrors.httpError('FW_ERR_DATABASE_UNAVAILABLE', {
      headers: { 'retry-after': String(RETRY_AFTER_S) },
    }),
  )
}

/** The bounded waits of the config (`database.acquire_timeout`, `database.statement_timeout`). */
function timeoutsOf(kernel: Kernel): DatabaseTimeouts {
  const { acquire_timeout: acquire, statement_timeout: statement } = kernel.config.database
  return { acquireMs: acquire * 1000, statementMs: statement * 1000 }
}

function tooLate(method: string): FwError {
  return databaseErrors.error('FW_ERR_DATABASE_SETUP_CLOSED', { method })
}

export { runStatement, StatementError } from './bound-query.js'
export { isUnavailableError } from './availability.js'
export type { Availability } from './availability.js'
export type { DatabaseTimeouts } from './orm.js'
export type { Statement, StatementFailure } from './bound-query.js'
export { createTestDatabase } from './test-database.js'
export type { TestDatabase } from './test-database.js'
export { parseDatabaseUrl } from './connection-url.js'
export { databaseErrors } from './errors.js'
export { defineMigration } from './define-migration.js'
export type { AddSql, MigrationSteps, SqlMigration } from './define-migration.js'
export type { DatabaseTarget } from './connection-url.js'
export type { AnyEntitySchema } from './orm.js'
export type { PrepareResult } from './prepare.js'
export type { ListeningHandler, NotificationHandler, NotifyOptions } from './notifications.js'
