import {
  MikroORM,
  TransactionContext,
  type AnyEntity,
  type EntityManager,
  type EntitySchema,
  type Options,
} from '@mikro-orm/core'
import type { Knex, SqlEntityManager } from '@mikro-orm/knex'
import { PostgreSqlDriver } from '@mikro-orm/postgresql'
import { currentContext, type RequestContext } from 'fw'
import type { DatabaseTarget } from './connection-url.js'
import { registerConnections, type Connections } from './bound-query.js'
import type { MigrationObject } from './migration-types.js'
import { quoteArrayElements } from './array-literal.js'
import { bindOrmStatements } from './bound-execute.js'
import { adoptBoundModels, bindDetached, boundModel, isDetachable } from './bound-models.js'
import { createReadPool, SERVER_FIRST_MS, type ReadPool } from './read-pool.js'
import { adaptOrmStatements } from './orm-statements.js'
import { ModelRecorder, QueryRecorder, REQUEST_KEY } from './recorders.js'
import type { EmbeddedDatabase } from './pglite-thread.js'
import { Deadlines } from './statement-deadlines.js'
import { refuseUnstorable, refuseUnstorableValue } from './unstorable-input.js'

declare module 'fw' {
  interface ContextState {
    /** The request's own EntityManager, forked on first use (database plugin). */
    em?: EntityManager
  }
}

/** An entity declaration the plugin accepts: MikroORM `EntitySchema`s (no legacy decorators). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- EntitySchema's type parameters vary per entity
export type AnyEntitySchema = EntitySchema<any, any>

/** What opening the database gives: the ORM and, for PGlite, the embedded instance it borrows. */
export interface OpenedDatabase {
  readonly orm: MikroORM
  /** Every migration, in the order they run (migration-order.ts). */
  readonly migrations: readonly MigrationObject[]
  /** The request's own EntityManager (see {@link requestEm}). */
  forRequest(ctx: RequestContext): EntityManager
  /** Where statements run: knex's client, and the read pool on PostgreSQL (see `createReadPool`). */
  connections(): Connections
  /**
   * The transaction a statement of this request must join: the request's EntityManager's, or the
   * one `em.transactional()` is running the calling code in; undefined outside both.
   */
  transactionOf(ctx: RequestContext | undefined): Knex.Transaction | undefined
  /** The model a binding of this request already loaded for this key (bound or in its identity map). */
  loadedModel(ctx: RequestContext, className: string, key: unknown): object | undefined
  /**
   * A row of `className` as the request's model, hydrated as `em.findOne()` hydrates: into the
   * request's EntityManager when it has one (or the entity needs one: relations), else detached
   * until it needs one (see `bound-models.ts`). Undefined when the row maps to nothing.
   */
  modelOf(
    ctx: RequestContext,
    className: string,
    key: unknown,
    row: Record<string, unknown>,
  ): object | undefined
  /**
   * Closes the ORM, then the embedded database if there is one; with `keepEmbedded`, answers that
   * one open instead (`fw dev` opens the next ORM on it when the entities changed).
   */
  close(keepEmbedded?: boolean): Promise<EmbeddedDatabase | undefined>
}

/** How long the app waits on its database (the database plugin's README, "Bounded waits"). */
export interface DatabaseTimeouts {
  /** For a connection: opening one, or a free one from the pool; 0 waits forever. */
  readonly acquireMs: number
  /** For one statement, on the server (`statement_timeout`) and on the client; 0: forever. */
  readonly statementMs: number
}

/** How {@link openDatabase} opens: all optional. */
export interface OpenOptions {
  /** For PGlite, the instance already being created (see {@link openDatabase}). */
  readonly starting?: Promise<EmbeddedDatabase> | undefined
  /** For PGlite: run it in a worker thread (pglite-thread.ts); default true. */
  readonly embeddedInWorker?: boolean
  readonly timeouts?: DatabaseTimeouts
  /** Where the driver's warnings go (knex writes them to stderr otherwise). */
  readonly warn?: (message: string) => void
}

/**
 * Initialises MikroORM for a target without connecting: the first query connects (so CLI commands
 * that never touch the database never pay for it; PGlite's WASM start-up alone is ~0.3 s). For
 * PGlite, `starting` is the instance already being created (the caller overlaps its start with
 * loading this module); without it, the first connection creates one.
 */
export async function openDatabase(
  target: DatabaseTarget,
  entities: readonly AnyEntitySchema[],
  migrations: readonly MigrationObject[],
  {
    starting,
    timeouts = { acquireMs: 5000, statementMs: 5000 },
    warn,
    embeddedInWorker = true,
  }: OpenOptions = {},
): Promise<OpenedDatabase> {
  let pglite: EmbeddedDatabase | undefined
  let orm: MikroORM | undefined
  const common: Options = {
    entities: [...entities],
    loggerFactory: (options) => new QueryRecorder(options),
    // The connection's `execute` hands every statement the ORM runs (finds, flushes, `em.execute`,
    // migrations) and its parameters here before formatting and sending it: the one place to
    // refuse a value the database cannot hold.
    onQuery: (sql, params) => {
      refuseUnstorable(sql, params)
      return sql
    },
    subscribers: [new ModelRecorder()],
    // The request's EntityManager: MikroORM asks this whenever code uses `orm.em`.
    context: () => {
      const ctx = currentContext()
      if (ctx === undefined || orm === undefined) return undefined
      return requestEm(orm, ctx)
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    connect: false,
    discovery: { warnWhenNoEntities: false },
  }
  if (target.kind === 'postgresql') {
    orm = await MikroORM.init({
      ...common,
      driver: PostgreSqlDriver,
      // The lifecycle makes sure the database exists first, and creates it only outside
      // production (database-exists.ts `ensureDatabase`).
      ensureDatabase: false,
      clientUrl: target.url,
      dbName: target.dbName,
      pool: { min: 0, max: 10 },
      driverOptions: {
        // Bounded waits: a refused, frozen or saturated server answers a request with an error
        // within these times instead of holding it (knex's own acquire default is 60 s, node-pg
        // waits forever). The read pool copies these connection settings.
        ...(timeouts.acquireMs > 0 ? { acquireConnectionTimeout: timeouts.acquireMs } : {}),
        // knex reports a lost connection ("Connection Error: …") on stderr; the app's log is the
        // place for it (the failing statement answers 503 anyway).
        ...(warn === undefined
          ? {}
          : { log: { warn, error: warn, deprecate: warn, debug: () => undefined } }),
        connection: {
          ...(timeouts.acquireMs > 0 ? { connectionTimeoutMillis: timeouts.acquireMs } : {}),
          // Server side: a slow statement is cancelled (57014) and its connection stays usable.
          // The client side (a server that stopped answering cannot cancel anything) is
          // `deadlines` below, not node-pg's per-statement `query_timeout`.
          ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
        },
      },
    })
  } else {
    const dataDir = target.dataDir
    // Loaded only here: an app on PostgreSQL never loads the embedded database's driver.
    const [{ PGliteDriver, PGliteKnexDialect }, { openEmbedded }, { fixPgliteStatements }] =
      await Promise.all([
        import('mikro-orm-pglite'),
        import('./pglite-thread.js'),
        import('./pglite-statements.js'),
      ])
    fixPgliteStatements(PGliteKnexDialect)
    orm = await MikroORM.init({
      ...common,
      driver: PGliteDriver,
      dbName: 'postgres',
      driverOptions: {
        connection: {
          // knex-pglite uses `query`, `exec` and `waitReady`: what `EmbeddedDatabase` has.
          pglite: async () => {
            pglite ??= await (starting ??
              openEmbedded(dataDir, {
                statementMs: timeouts.statementMs,
                inWorker: embeddedInWorker,
              }))
            return pglite
          },
        },
      },
    })
  }
  const opened = orm
  // MikroORM serialises a JSON property's value itself (`JSON.stringify`), so a NUL inside it
  // reaches `onQuery` escaped (`\u0000`), which text may spell too, and `jsonb` refuses it only
  // on the server (22P05). The value is checked before it is serialised instead.
  const platform = opened.em.getPlatform()
  const jsonToDatabase = platform.convertJsonToDatabaseValue.bind(platform)
  platform.convertJsonToDatabaseValue = (value, context) => {
    refuseUnstorableValue(value)
    return jsonToDatabase(value, context)
  }
  quoteArrayElements(platform)
  // Every statement of the ORM's with its values bound, never inlined (bound-execute.ts).
  bindOrmStatements(opened.em.getConnection())
  // The client-side statement timeout of the ORM's statements and the read pool's: one timer
  // for all of them (see statement-deadlines.ts). PGlite keeps its own (pglite-thread.ts).
  const deadlines = new Deadlines(target.kind === 'postgresql' ? timeouts.statementMs : 0)
  // The read pool's, later by `SERVER_FIRST_MS`: on a pipelined connection, the client's timeout
  // must not fire before the server's cancel of a slow statement is heard (see read-pool.ts).
  const readDeadlines = new Deadlines(
    target.kind === 'postgresql' && timeouts.statementMs > 0
      ? timeouts.statementMs + SERVER_FIRST_MS
      : 0,
  )
  // MikroORM's statements get their rows as the read pool's do, under the same timeout.
  adaptOrmStatements(opened.em.getConnection(), deadlines)
  let reads: ReadPool | null | undefined
  let connections: Connections | undefined
  const connectionsOf = (): Connections => {
    if (connections !== undefined) return connections
    const client = (opened.em as SqlEntityManager).getKnex().client
    reads ??= createReadPool(client, opened.config.get('pool')?.max ?? 10, readDeadlines) ?? null
    return (connections = {
      client,
      pglite: (client as { dialect?: unknown }).dialect === 'pglite',
      readPool: reads?.read,
    })
  }
  registerConnections(opened.config, connectionsOf)
  const hydrator = opened.config.getHydrator(opened.getMetadata())
  const detachable = new Map<string, boolean>()
  const adopt = (ctx: RequestContext): void => void requestEm(opened, ctx)
  return {
    orm: opened,
    migrations,
    forRequest: (ctx) => requestEm(opened, ctx),
    connections: connectionsOf,
    transactionOf(ctx) {
      // The innermost first: the transaction `em.transactional()` runs the calling code in (on
      // PGlite's one connection, a statement outside it would wait for it forever).
      const inner = TransactionContext.getEntityManager(opened.em.name)
      return (
        inner?.getTransactionContext<Knex.Transaction>() ??
        ctx?.state.em?.getTransactionContext<Knex.Transaction>()
      )
    },
    loadedModel(ctx, className, key) {
      const em = ctx.state.em
      if (em === undefined) return boundModel(ctx, className, key)
      return em.getUnitOfWork().getById<object>(className, key as never)
    },
    modelOf(ctx, className, key, row) {
      const meta = opened.getMetadata().find(className)!
      const data = opened.em.getDriver().mapResult(row, meta)
      if (data === null) return undefined
      let detached = detachable.get(className)
      if (detached === undefined) detachable.set(className, (detached = isDetachable(opened, meta)))
      if (detached && ctx.state.em === undefined)
        return bindDetached(ctx, hydrator, meta, key, data, adopt)
      return requestEm(opened, ctx)
        .getEntityFactory()
        .create<object>(className, data, { merge: true, convertCustomTypes: true })
    },
    async close(keepEmbedded = false) {
      await reads?.end()
      reads = null
      connections = undefined
      await opened.close(true)
      deadlines.close()
      readDeadlines.close()
      // Started early (see `starting`) but never connected: still ours to close.
      pglite ??= await starting?.catch(() => undefined)
      if (keepEmbedded) return pglite
      await pglite?.close()
      return undefined
    },
  }
}

/**
 * The request's own EntityManager, forked on first use: only requests that touch the database pay
 * for the fork. The fork resolves no context of its own, so its methods never consult the scope.
 * It adopts the models the request's bindings loaded before it existed.
 */
export function requestEm(orm: MikroORM, ctx: RequestContext): EntityManager {
  let em = ctx.state.em
  if (em === undefined) {
    em = ctx.state.em = orm.em.fork({
      disableContextResolution: true,
      loggerContext: { [REQUEST_KEY]: ctx },
    })
    adoptBoundModels(ctx, em)
  }
  return em
}

/** The entity's class name as MikroORM knows it. */
export function entityName(entity: AnyEntity): string {
  return (entity as { constructor: { name: string } }).constructor.name
}
