import {
  TransactionContext,
  type AnyEntity,
  type EntityManager,
  type EntitySchema,
  type MikroORM,
  type Options,
} from '@mikro-orm/core'
import type { Knex, SqlEntityManager } from '@mikro-orm/knex'
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
import {
  initPglite,
  initPostgreSql,
  type DatabaseTimeouts,
  type EmbeddedSlot,
} from './orm-drivers.js'
import { refuseUnstorable, refuseUnstorableValue } from './unstorable-input.js'

export type { DatabaseTimeouts } from './orm-drivers.js'

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
  const embedded: EmbeddedSlot = { pglite: undefined }
  let orm: MikroORM | undefined
  const common = sharedOptions(entities, () => orm)
  if (target.kind === 'postgresql') {
    orm = await initPostgreSql(common, target, timeouts, warn)
  } else {
    orm = await initPglite(common, target.dataDir, embedded, {
      starting,
      statementMs: timeouts.statementMs,
      inWorker: embeddedInWorker,
    })
  }
  const opened = orm
  adaptPlatform(opened)
  const { deadlines, readDeadlines } = adaptStatements(opened, target, timeouts)
  const source: ConnectionSource = { reads: undefined, connections: undefined }
  const connectionsOf = (): Connections => connectionsFor(opened, readDeadlines, source)
  registerConnections(opened.config, connectionsOf)
  const modelOf = modelHydrator(opened)
  const closing: Closing = { orm: opened, source, deadlines, readDeadlines, embedded, starting }
  return {
    orm: opened,
    migrations,
    forRequest: (ctx) => requestEm(opened, ctx),
    connections: connectionsOf,
    transactionOf: (ctx) => joinedTransaction(opened, ctx),
    loadedModel,
    modelOf,
    close: (keepEmbedded = false) => closeDatabase(closing, keepEmbedded),
  }
}

/** The options both drivers share; `ormOf` answers the ORM once `MikroORM.init` has given it. */
function sharedOptions(
  entities: readonly AnyEntitySchema[],
  ormOf: () => MikroORM | undefined,
): Options {
  return {
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
      if (ctx === undefined) return undefined
      const orm = ormOf()
      return orm === undefined ? undefined : requestEm(orm, ctx)
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    connect: false,
    discovery: { warnWhenNoEntities: false },
  }
}

/** The platform's conversions: a JSON value checked before it is serialised, arrays quoted. */
function adaptPlatform(orm: MikroORM): void {
  // MikroORM serialises a JSON property's value itself (`JSON.stringify`), so a NUL inside it
  // reaches `onQuery` escaped (`\u0000`), which text may spell too, and `jsonb` refuses it only
  // on the server (22P05). The value is checked before it is serialised instead.
  const platform = orm.em.getPlatform()
  const jsonToDatabase = platform.convertJsonToDatabaseValue.bind(platform)
  platform.convertJsonToDatabaseValue = (value, context) => {
    refuseUnstorableValue(value)
    return jsonToDatabase(value, context)
  }
  quoteArrayElements(platform)
}

/** The statement timers: the ORM's, and the read pool's (both close with the database). */
interface StatementDeadlines {
  readonly deadlines: Deadlines
  readonly readDeadlines: Deadlines
}

/** Binds the ORM's statements' values and times them; answers its timers and the read pool's. */
function adaptStatements(
  orm: MikroORM,
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts,
): StatementDeadlines {
  // Every statement of the ORM's with its values bound, never inlined (bound-execute.ts).
  bindOrmStatements(orm.em.getConnection())
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
  adaptOrmStatements(orm.em.getConnection(), deadlines)
  return { deadlines, readDeadlines }
}

/** The connections made on first use; the read pool is null once there is none or it closed. */
interface ConnectionSource {
  reads: ReadPool | null | undefined
  connections: Connections | undefined
}

/** Where statements run, made on first use and kept in `source` until the database closes. */
function connectionsFor(
  orm: MikroORM,
  readDeadlines: Deadlines,
  source: ConnectionSource,
): Connections {
  if (source.connections !== undefined) return source.connections
  const client = (orm.em as SqlEntityManager).getKnex().client
  source.reads ??= createReadPool(client, orm.config.get('pool')?.max ?? 10, readDeadlines) ?? null
  return (source.connections = {
    client,
    pglite: (client as { dialect?: unknown }).dialect === 'pglite',
    readPool: source.reads?.read,
  })
}

/** {@link OpenedDatabase.transactionOf}: the innermost transaction a statement must join. */
function joinedTransaction(
  orm: MikroORM,
  ctx: RequestContext | undefined,
): Knex.Transaction | undefined {
  // The innermost first: the transaction `em.transactional()` runs the calling code in (on
  // PGlite's one connection, a statement outside it would wait for it forever).
  const inner = TransactionContext.getEntityManager(orm.em.name)
  return (
    inner?.getTransactionContext<Knex.Transaction>() ??
    ctx?.state.em?.getTransactionContext<Knex.Transaction>()
  )
}

/** {@link OpenedDatabase.loadedModel}: the request's bound model or its identity map's. */
function loadedModel(ctx: RequestContext, className: string, key: unknown): object | undefined {
  const em = ctx.state.em
  if (em === undefined) return boundModel(ctx, className, key)
  return em.getUnitOfWork().getById<object>(className, key as never)
}

/** {@link OpenedDatabase.modelOf}, keeping per entity class whether it hydrates detached. */
function modelHydrator(orm: MikroORM): OpenedDatabase['modelOf'] {
  const hydrator = orm.config.getHydrator(orm.getMetadata())
  const detachable = new Map<string, boolean>()
  const adopt = (ctx: RequestContext): void => void requestEm(orm, ctx)
  return (ctx, className, key, row) => {
    const meta = orm.getMetadata().find(className)!
    const data = orm.em.getDriver().mapResult(row, meta)
    if (data === null) return undefined
    let detached = detachable.get(className)
    if (detached === undefined) detachable.set(className, (detached = isDetachable(orm, meta)))
    if (detached && ctx.state.em === undefined)
      return bindDetached(ctx, hydrator, meta, key, data, adopt)
    return requestEm(orm, ctx)
      .getEntityFactory()
      .create<object>(className, data, { merge: true, convertCustomTypes: true })
  }
}

/** What {@link closeDatabase} closes: all an opened database holds. */
interface Closing extends StatementDeadlines {
  readonly orm: MikroORM
  readonly source: ConnectionSource
  readonly embedded: EmbeddedSlot
  readonly starting: Promise<EmbeddedDatabase> | undefined
}

/** {@link OpenedDatabase.close}: the read pool, the ORM, the timers, then the embedded database. */
async function closeDatabase(
  closing: Closing,
  keepEmbedded: boolean,
): Promise<EmbeddedDatabase | undefined> {
  const { source, embedded } = closing
  await source.reads?.end()
  source.reads = null
  source.connections = undefined
  await closing.orm.close(true)
  closing.deadlines.close()
  closing.readDeadlines.close()
  // Started early (see `starting`) but never connected: still ours to close.
  embedded.pglite ??= await closing.starting?.catch(() => undefined)
  if (keepEmbedded) return embedded.pglite
  await embedded.pglite?.close()
  return undefined
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
