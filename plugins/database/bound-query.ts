import type { Knex, SqlEntityManager } from '@mikro-orm/knex'
import { performance } from 'node:perf_hooks'
import { currentContext, type RequestContext } from 'fw'
import type { ReadRows } from './read-pool.js'
import { TEXT_SERIALIZERS } from './text-parameters.js'
import { refuseUnstorable } from './unstorable-input.js'

/** A statement with `?` placeholders and its values, bound in order. */
export interface Statement {
  readonly sql: string
  readonly bindings: readonly unknown[]
}

/** Why a statement failed, as the list envelope reports it. */
export interface StatementFailure {
  /** The database's own message (the driver's SQL prefix removed), or a generic one. */
  readonly message: string
  /** The SQLSTATE, when the database answered with one. */
  readonly sqlState: string | undefined
  readonly cause: unknown
}

/** Thrown by {@link runStatement}: the database's message and SQLSTATE, or a generic sentence. */
export class StatementError extends Error {
  readonly failure: StatementFailure
  constructor(failure: StatementFailure) {
    super(failure.message, { cause: failure.cause })
    this.name = 'StatementError'
    this.failure = failure
  }
}

function failureOf(error: unknown, positioned: string): StatementFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown
    message?: unknown
  }
  const sqlState = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined
  if (sqlState === undefined) {
    // Not an answer from the database (a lost connection, a driver fault): its text may name
    // hosts or internals, so the client gets a sentence and the log gets the error.
    return { message: 'the database did not answer', sqlState, cause: error }
  }
  let message = typeof e.message === 'string' ? e.message : String(error)
  // knex prefixes the statement (`select … - invalid input syntax …`); the envelope wants the
  // database's message alone.
  const prefix = `${positioned} - `
  if (message.startsWith(prefix)) message = message.slice(prefix.length)
  return { message, sqlState, cause: error }
}

/** A connection from knex's pool: node-pg's `Client`, or the PGlite instance knex-pglite shares. */
interface Connection {
  query(...args: unknown[]): Promise<{ rows: Record<string, unknown>[] }>
}

/**
 * Runs on a connection of knex's pool (or the transaction's own), skipping knex's query runner:
 * the statement is already positional SQL, so the runner's work would only be overhead.
 */
async function runOnConnection(
  client: Knex.Client,
  pglite: boolean,
  sql: string,
  bindings: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  const connection = (await client.acquireConnection()) as Connection
  try {
    const result = pglite
      ? await connection.query(sql, bindings, { serializers: TEXT_SERIALIZERS })
      : // Text and values apart: a config object costs node-pg a descriptor-by-descriptor copy.
        await connection.query(sql, bindings)
    return result.rows
  } finally {
    await client.releaseConnection(connection)
  }
}

/** A statement ready to send: `$n` placeholders, its values, and what events show. */
export interface BoundRead {
  /** The statement with `$1`, `$2`…, as sent. */
  readonly text: string
  /** The same with `?` placeholders, as `query.executed` events report it. */
  readonly sql: string
  readonly values: readonly unknown[]
  /** Set: prepared once per PostgreSQL connection under this name (unique per text). */
  readonly name?: string | undefined
}

/** Where a statement can run: knex's pool (and a transaction on it), and the plugin's read pool. */
export interface Connections {
  /** knex's client: its pool, or PGlite's one connection. */
  readonly client: Knex.Client
  /** True on PGlite (parameters sent as text, see `TEXT_SERIALIZERS`). */
  readonly pglite: boolean
  /** The plugin's own `pg.Pool` on PostgreSQL (see `createReadPool`); undefined on PGlite. */
  readonly readPool: ReadRows | undefined
}

/** The connections of an EntityManager's ORM, registered by `openDatabase` under its config. */
const byConfig = new WeakMap<object, () => Connections>()

/** Lets {@link runStatement} find the read pool of the ORM whose config this is. */
export function registerConnections(config: object, connections: () => Connections): void {
  byConfig.set(config, connections)
}

/** The connections registered for an ORM's config (see {@link registerConnections}). */
export function connectionsFor(config: object): Connections | undefined {
  return byConfig.get(config)?.()
}

/**
 * Runs one statement, the hot path of every read that needs no unit of work: inside the
 * transaction `trx` when there is one (on its connection), else on the read pool (PostgreSQL: a
 * named statement is parsed once per connection, then only bound and executed; one without a
 * name is parsed each time, still with bound values), else (PGlite) on a connection of knex's
 * pool. A value the database cannot hold is refused before anything is sent; a failure is a
 * {@link StatementError}; a `query.executed` event goes into `ctx`'s log either way.
 */
export function runRead(
  connections: Connections,
  trx: Knex.Transaction | undefined,
  read: BoundRead,
  ctx: RequestContext | undefined,
): Promise<Record<string, unknown>[]> {
  try {
    // Before anything is sent: a value the database cannot hold is the client's 400, not a
    // StatementError.
    refuseUnstorable(read.text, read.values)
  } catch (error) {
    return Promise.reject(error as Error)
  }
  const started = performance.now()
  const { readPool } = connections
  // The read pool follows knex's: once the ORM is closed (knex's pool gone), statements fail as
  // the ORM's do. On it, one promise per statement, settled from the driver's callback: no async
  // frame or intermediate promise stays alive while the statement waits for a connection.
  if (trx === undefined && readPool !== undefined && connections.client.pool !== undefined) {
    return new Promise((resolve, reject) => {
      readPool(read, (error, rows) => {
        recordRead(ctx, read, started, rows)
        if (rows !== undefined) resolve(rows)
        else reject(new StatementError(failureOf(error, read.text)))
      })
    })
  }
  return runOnConnection(
    trx?.client ?? connections.client,
    connections.pglite,
    read.text,
    read.values,
  ).then(
    (rows) => {
      recordRead(ctx, read, started, rows)
      return rows
    },
    (error: unknown) => {
      recordRead(ctx, read, started, undefined)
      throw new StatementError(failureOf(error, read.text))
    },
  )
}

/** The `query.executed` event of a statement that ended (`rows` undefined: it failed). */
function recordRead(
  ctx: RequestContext | undefined,
  read: BoundRead,
  started: number,
  rows: readonly unknown[] | undefined,
): void {
  ctx?.log.record('query.executed', {
    sql: read.sql,
    params: read.values,
    duration: performance.now() - started,
    rows: rows?.length,
    failed: rows === undefined,
  })
}

/** A `?` statement as {@link runRead} sends it: `$n` placeholders (knex's numbering, `\\?` kept). */
export function positioned(client: Knex.Client, statement: Statement): BoundRead {
  return {
    text: client.positionBindings(statement.sql) as string,
    sql: statement.sql,
    values: statement.bindings,
  }
}

/**
 * Runs a statement with its values as real bound parameters (PostgreSQL's extended protocol: `$1`,
 * `$2`…; MikroORM's own `execute` would inline them): on the EntityManager's transaction if it has
 * one, else as {@link runRead} does (the read pool on PostgreSQL, knex's pool on PGlite). Records a
 * `query.executed` event in the current request's log, like every statement the database plugin
 * runs.
 */
export function runStatement(
  em: SqlEntityManager,
  statement: Statement,
): Promise<Record<string, unknown>[]> {
  const knex = em.getKnex()
  const connections = byConfig.get(em.config)?.() ?? {
    client: knex.client,
    pglite: (knex.client as { dialect?: unknown }).dialect === 'pglite',
    readPool: undefined,
  }
  let read: BoundRead
  try {
    read = positioned(knex.client, statement)
  } catch (error) {
    return Promise.reject(error as Error)
  }
  return runRead(connections, em.getTransactionContext<Knex.Transaction>(), read, currentContext())
}

/** {@link positioned} for a database not necessarily open yet: resolved when the read runs. */
export function positionedIn(statement: Statement) {
  return (db: { connections(): Connections }): BoundRead =>
    positioned(db.connections().client, statement)
}
