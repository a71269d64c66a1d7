import type { Knex, SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import {
  currentContext,
  definePlugin,
  httpErrorReply,
  maskErrorMessage,
  messageOf,
  type Kernel,
  type RequestContext,
} from 'fw'
import { isUnavailableError } from './availability.js'
import { registerBindings } from './bindings.js'
import { positionedIn, runRead, runStatement } from './bound-query.js'
import { parseDatabaseUrl, type DatabaseTarget } from './connection-url.js'
import { databaseErrorMessage, summaryOf } from './error-summary.js'
import { databaseErrors } from './errors.js'
import './events.js'
import { EntityOwners } from './entity-owners.js'
import { DatabaseLifecycle } from './lifecycle.js'
import { databaseCommands } from './migrate-command.js'
import { migrationApi } from './migration-api.js'
import { APP_PLACE } from './migration-order.js'
import { PgNotifications } from './notifications.js'
import type { DatabaseTimeouts, OpenedDatabase } from './orm.js'
import { databaseReadiness } from './readiness.js'
import { RequestView, type Read } from './request-view.js'
import { shareMaintenance } from './shared-maintenance.js'
import { sql, type SqlStatement } from './sql.js'
import type { DatabaseApi, DatabaseOptions } from './types.js'
import { invalidInput, isUnstorableInputError, refuseUnstorable } from './unstorable-input.js'

/**
 * MikroORM 6 as a plugin: PostgreSQL (`postgresql://…`) or embedded PGlite (`pglite://memory`,
 * `pglite://<dir>`), a request-scoped EntityManager, `query.*` and `model.*` events in each
 * request's log, migrations under an advisory lock, implicit route binding for every entity, and
 * `fw migrate`.
 */
export default definePlugin<DatabaseOptions, DatabaseApi>({
  name: 'database',
  config: {
    defaults: {
      database: { url: undefined, acquire_timeout: 5, statement_timeout: 5, pglite_worker: true },
    },
    schema: {
      'database.url': 'string?',
      'database.acquire_timeout': 'seconds',
      'database.statement_timeout': 'seconds',
      'database.pglite_worker': 'boolean',
    },
    env: { 'database.url': 'DATABASE_URL' },
  },
  setup(kernel, options) {
    if (options.requestScope !== false) kernel.useRequestScope()
    // `pglite://<dir>` resolves against the app root, as every other path of the app does.
    const target = parseDatabaseUrl(
      options.url ?? kernel.config.database.url ?? 'pglite://memory',
      kernel.root,
    )
    const life = lifecycleOf(kernel, options, target)
    const opened = () => life.opened()
    const order = setupOrder(kernel)
    const owners = new EntityOwners(options.entities ?? [], kernel.bootTimeline)
    const read = fastRead(opened)
    const notifications = notificationsOf(kernel, target, () => api.em())
    const api = databaseApi(kernel, {
      target,
      life,
      opened,
      owners,
      placeOfCaller: order.placeOfCaller,
      read,
      notifications,
    })
    tapOpening(kernel, life, opened, order.markPluginsSetUp)
    for (const command of databaseCommands) kernel.command(command)
    tapListen(kernel, options, target, life)
    declareServeOptions(kernel, target, life)
    if (target.kind === 'postgresql') shareMaintenance(kernel, api)
    // Readiness: no traffic while the database cannot be reached (`GET /health/ready`).
    kernel.readiness.add(
      'database',
      databaseReadiness(
        () => life.availability(),
        () => life.check(),
      ),
    )
    tapErrors(kernel)
    tapShutdown(kernel, life, notifications)
    return api
  },
})

/** The lifecycle of the plugin's database, configured from its options and the config. */
function lifecycleOf(
  kernel: Kernel,
  options: DatabaseOptions,
  target: DatabaseTarget,
): DatabaseLifecycle {
  return new DatabaseLifecycle({
    target,
    timeouts: timeoutsOf(kernel),
    embeddedInWorker: kernel.config.database.pglite_worker,
    createsDatabase: kernel.config.app.env !== 'production',
    entities: options.entities,
    migrations: options.migrations,
    seed: options.seed,
    logger: kernel.logger,
    onConnected: (ms) => kernel.recordBootPhase('db-connect', ms),
    inRequest: () => currentContext() !== undefined,
  })
}

/** The place in the setup order of whoever adds migrations or entities now. */
interface SetupOrder {
  readonly placeOfCaller: () => number
  /** Called by the boot tap: from then on, additions are the app's. */
  readonly markPluginsSetUp: () => void
}

/** Tracks whether every plugin is set up, to place the caller of `addMigrations`/`addEntities`. */
function setupOrder(kernel: Kernel): SetupOrder {
  // Who adds migrations (README.md "Migration order"): a plugin in its setup, at its place in the
  // setup order (the boot timeline holds the plugins set up before it); the app once every
  // plugin is set up (this plugin's boot tap marks that).
  let pluginsSetUp = false
  return {
    placeOfCaller: () => (pluginsSetUp ? APP_PLACE : kernel.bootTimeline.length),
    markPluginsSetUp: () => {
      pluginsSetUp = true
    },
  }
}

/**
 * The fast read path (`sql`, `query`, `runStatement` without an EntityManager): no EntityManager,
 * no unit of work; the transaction of `em`, else the one the calling code runs in, else the read
 * pool.
 */
function fastRead(opened: () => OpenedDatabase): Read {
  return (statement, em, ctx) => {
    try {
      const db = opened()
      const trx =
        em !== undefined ? em.getTransactionContext<Knex.Transaction>() : db.transactionOf(ctx)
      const bound = typeof statement === 'function' ? statement(db) : statement
      return runRead(db.connections(), trx, bound, ctx)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }
}

/** LISTEN/NOTIFY on PostgreSQL over a dedicated connection; none on PGlite. */
function notificationsOf(
  kernel: Kernel,
  target: DatabaseTarget,
  em: () => EntityManager,
): PgNotifications | undefined {
  return target.kind === 'postgresql'
    ? new PgNotifications({
        url: target.url,
        send: (sql, params) => em().execute(sql, params, 'all'),
        warn: (message) => kernel.logger.warn(`database: ${message}`),
      })
    : undefined
}

/** What the plugin's API is built from. */
interface ApiParts {
  readonly target: DatabaseTarget
  readonly life: DatabaseLifecycle
  readonly opened: () => OpenedDatabase
  readonly owners: EntityOwners
  readonly placeOfCaller: () => number
  readonly read: Read
  readonly notifications: PgNotifications | undefined
}

/** The plugin's API (`kernel.plugin('database')`). */
function databaseApi(kernel: Kernel, parts: ApiParts): DatabaseApi {
  const { target, life, opened, owners, placeOfCaller, read, notifications } = parts
  return {
    get orm() {
      return opened().orm
    },
    target,
    ready: () => life.open(),
    addEntities: (...more) => {
      life.addEntities(more)
      owners.add(more, placeOfCaller())
    },
    entities: () => owners.list(),
    addMigrations: (more) => life.addMigrations(more, placeOfCaller()),
    addSeed: (more) => life.addSeed(more),
    availability: () => life.availability(),
    em: () => {
      const database = opened()
      const ctx = currentContext()
      return (
        ctx === undefined ? database.orm.em.fork() : database.forRequest(ctx)
      ) as EntityManager
    },
    forRequest: (ctx) => new RequestView(ctx, read, opened),
    toData: (entity) => life.toData(entity),
    runStatement: (statement, em) =>
      em !== undefined
        ? runStatement(em, statement)
        : read(positionedIn(statement), undefined, currentContext()),
    query: <Row extends object>(statement: SqlStatement<Row>, em?: EntityManager) =>
      read(statement, em, currentContext()) as Promise<Row[]>,
    sql: <Row extends object>(strings: TemplateStringsArray, ...values: unknown[]) =>
      read(sql<Row>(strings, ...values), undefined, currentContext()) as Promise<Row[]>,
    prepare: () => life.prepare(),
    ...migrationApi(life, timeoutsOf(kernel).acquireMs),
    migrations: () => life.migrations(),
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
}

/** Taps boot (declares the bindings) and request (opens the database on first use). */
function tapOpening(
  kernel: Kernel,
  life: DatabaseLifecycle,
  opened: () => OpenedDatabase,
  markPluginsSetUp: () => void,
): void {
  // Bindings are declared at boot (every plugin has added its entities by then); the database
  // itself opens on the first request, or earlier when serving or when a command asks.
  kernel.hooks.boot.tapPromise({ name: 'database', stage: -100 }, async () => {
    markPluginsSetUp()
    registerBindings(kernel, opened, life.entities)
  })
  // Once open, a synchronous no-op: a request that does not wait for the database costs no promise.
  kernel.hooks.request.tap({ name: 'database', stage: -100 }, () =>
    life.current === undefined ? life.open().then(() => undefined) : undefined,
  )
}

/** Taps listen: prepares the database in the background, warns of an embedded one in production. */
function tapListen(
  kernel: Kernel,
  options: DatabaseOptions,
  target: DatabaseTarget,
  life: DatabaseLifecycle,
): void {
  // A database that cannot be reached does not stop the start: the app listens (health says
  // why), routes that need the database answer 503, and the background retries connect,
  // migrate and seed when it comes back (DatabaseLifecycle.prepareOrWait).
  if (options.prepareOnListen !== false)
    kernel.hooks.listen.tapPromise('database', () => life.prepareOrWait())
  // Served in production from the embedded database: said once, at listen
  // (test/cli/production-database.test.ts).
  if (target.kind === 'pglite' && kernel.config.app.env === 'production')
    kernel.hooks.listen.tap('database', () => kernel.logger.warn(embeddedInProduction(target)))
}

/** Declares `fw serve --require-database`, and refuses `--workers` on an embedded database. */
function declareServeOptions(
  kernel: Kernel,
  target: DatabaseTarget,
  life: DatabaseLifecycle,
): void {
  // `fw serve --require-database` keeps the fail-fast start (README.md "When the database is
  // away"); `--workers N` needs a server that several processes share.
  kernel.serveOptions.require('database', {
    description:
      'Exit 1 when the database cannot be migrated and seeded, instead of serving without it',
    check: () =>
      life.prepare().then(
        () => undefined,
        (error: unknown) => `the database is not available (${messageOf(error)})`,
      ),
  })
  if (target.kind === 'pglite')
    kernel.serveOptions.oneProcess(
      '--workers needs a PostgreSQL database: an embedded pglite:// database belongs to one process. Set DATABASE_URL=postgresql://… or serve one process.',
    )
}

/** Taps error: a database error answers 400 (unstorable input) or 503 (unavailable), masked. */
function tapErrors(kernel: Kernel): void {
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
}

/** Taps shutdown (late): closes the database, and the notifications connection with it. */
function tapShutdown(
  kernel: Kernel,
  life: DatabaseLifecycle,
  notifications: PgNotifications | undefined,
): void {
  kernel.hooks.shutdown.tapPromise({ name: 'database', stage: 100 }, async () => {
    await life.close(async () => {
      await notifications?.close()
    })
  })
}

/** Seconds a client is told to wait when the database is unavailable. */
const RETRY_AFTER_S = 5

function unavailableReply(kernel: Kernel, ctx: RequestContext, error: unknown) {
  kernel.logger.warn('database unavailable', { error: summaryOf(error), path: ctx.path })
  return httpErrorReply(
    ctx,
    databaseErrors.httpError('FW_ERR_DATABASE_UNAVAILABLE', {
      headers: { 'retry-after': String(RETRY_AFTER_S) },
    }),
  )
}

/** The warning of a production start on the embedded database: what it means, what to do. */
function embeddedInProduction(target: Extract<DatabaseTarget, { kind: 'pglite' }>): string {
  const where =
    target.dataDir === undefined
      ? 'in memory: every row is lost when the process stops'
      : `in ${target.dataDir}: one process only (no --workers, no second server, no command while it runs)`
  return `serving in production from the embedded database (PGlite) ${where}. Set DATABASE_URL to a PostgreSQL database for a deployment.`
}

/** The bounded waits of the config (`database.acquire_timeout`, `database.statement_timeout`). */
function timeoutsOf(kernel: Kernel): DatabaseTimeouts {
  const { acquire_timeout: acquire, statement_timeout: statement } = kernel.config.database
  return { acquireMs: acquire * 1000, statementMs: statement * 1000 }
}

export type { DatabaseApi, DatabaseOptions } from './types.js'
export type { DeclaredEntity } from './entity-owners.js'
export { deferEntity } from './deferred-entity.js'
export type { DeferredEntity, EntityDeclaration } from './deferred-entity.js'
export type { MigrationEntry, Migrations, MigrationState, Seed } from './lifecycle.js'
export { Migration } from './migration.js'
export type { MigrationQuery } from './migration.js'
export type { MigrationObject } from './migration-types.js'
export { runStatement, StatementError } from './bound-query.js'
export { sql } from './sql.js'
export type { SqlStatement } from './sql.js'
export { isUnavailableError } from './availability.js'
export { uniqueViolation } from './error-summary.js'
export type { UniqueViolation } from './error-summary.js'
export type { Availability } from './availability.js'
export type { DatabaseTimeouts } from './orm.js'
export type { Statement, StatementFailure } from './bound-query.js'
export { createTestDatabase } from './test-database.js'
export type { TestDatabase } from './test-database.js'
export { parseDatabaseUrl } from './connection-url.js'
export { databaseErrors } from './errors.js'
export { defineMigration } from './define-migration.js'
export { requireMigrated } from './migrate-command.js'
export type { AddSql, MigrationSteps, SqlMigration } from './define-migration.js'
export type { DatabaseTarget } from './connection-url.js'
export type { AnyEntitySchema } from './orm.js'
export type { PrepareResult } from './prepare.js'
export type { ListeningHandler, NotificationHandler, NotifyOptions } from './notifications.js'
export { openEmbeddedEarly } from './early-embedded.js'
export type { EmbeddedOpening } from './early-embedded.js'
