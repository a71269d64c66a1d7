// How MikroORM's statements run on PostgreSQL: through knex's client, with rows built as the read
// pool's are (row-shapes.ts), under the database's one client-side statement timeout
// (statement-deadlines.ts) in place of node-pg's per-statement timer, and on connections kept
// between statements (knex-connections.ts).
import { keepConnections } from './knex-connections.js'
import { shapedQueries } from './row-shapes.js'
import type { Deadlines, Running } from './statement-deadlines.js'

/** knex's PostgreSQL client, as far as {@link adaptKnexClient} relies on it. */
interface KnexPgClient {
  readonly dialect?: unknown
  readonly config?: object
  readonly driver?: { readonly Query?: unknown }
  _query?: (connection: unknown, obj: KnexQuery) => Promise<unknown>
}

/** What knex hands its dialect's `_query`: the statement, and where the response goes. */
interface KnexQuery {
  sql?: string
  bindings?: readonly unknown[]
  options?: unknown
  response?: unknown
}

/** One of knex's node-pg connections. */
interface PgConnection {
  query(query: object, callback: (error: Error | null, response: unknown) => void): void
  end(callback: (error?: Error) => void): void
}

/** MikroORM's SQL connection, as far as {@link adaptOrmStatements} relies on it. */
interface SqlConnection {
  createKnex(): void
  getKnex(): { readonly client: object }
  readonly client?: unknown
  begin(options?: unknown): Promise<unknown>
}

/** A knex transaction, as far as {@link reportFailedBegin} relies on it. */
interface KnexTransaction {
  isCompleted?(): boolean
  readonly executionPromise?: Promise<unknown>
}

/**
 * Every knex client the connection makes (on `connect()`, or on first use) runs its statements
 * the way this module says. Nothing changes for another dialect (PGlite) or a driver built
 * otherwise.
 */
export function adaptOrmStatements(connection: object, deadlines: Deadlines): void {
  const sql = connection as Partial<SqlConnection>
  reportFailedBegin(sql)
  const create = sql.createKnex
  if (typeof create !== 'function' || typeof sql.getKnex !== 'function') return
  sql.createKnex = function (this: SqlConnection) {
    create.call(this)
    adaptKnexClient(this.getKnex().client, deadlines)
  }
  if (sql.client !== undefined) adaptKnexClient(sql.getKnex().client, deadlines)
}

/**
 * A transaction whose `begin` failed (a statement timeout, a lost connection) fails with what
 * failed. knex catches the failure of its `BEGIN` (or `SAVEPOINT`), marks the transaction complete
 * and hands it over all the same: the first statement in it would then fail with "Transaction query
 * already complete", the reason lost (a write during an outage would answer 500, not 503). The
 * reason is in the transaction's `executionPromise`, which knex rejected with it.
 */
function reportFailedBegin(sql: Partial<SqlConnection>): void {
  const begin = sql.begin
  if (typeof begin !== 'function') return
  sql.begin = async function (this: SqlConnection, options?: unknown) {
    const trx = (await begin.call(this, options)) as KnexTransaction | undefined
    // Rejected by now when the `BEGIN` failed: the race rejects with it. A transaction whose
    // outer one completed meanwhile is still waiting: it is handed over as knex made it.
    if (trx?.isCompleted?.() === true) await Promise.race([trx.executionPromise, undefined])
    return trx
  }
}

/** How the statements of one knex client run: registered under its config object (see below). */
interface Adapted {
  readonly Shaped: (new (text: string, values: readonly unknown[]) => object) | undefined
  readonly deadlines: Deadlines
}

/**
 * The knex clients this module adapted, by their config object. A transaction runs its statements
 * on a client knex makes from the class's prototype, not from the client (`makeTxClient`), which
 * shares only a few fields with it: the config object is one of them.
 */
const adapted = new WeakMap<object, Adapted>()
/** Marks a client class's `_query` as this module's. */
const ADAPTED = Symbol('fw.database.ormStatements')

/**
 * Replaces knex's `_query` on the client's class, which every statement of the ORM goes through
 * (finds, flushes, the `begin` and `commit` around them, migrations), for the clients registered
 * in `adapted`; any other client of the class runs as it did. node-pg is handed a shaped `Query`
 * instead of a `{ text, values }` object, which it would run as a plain one; a statement with
 * options of knex's own (`rowMode`, say) goes the way it went. Either way the statement is under
 * `deadlines`: past the timeout it fails with node-pg's "Query read timeout" and its connection is
 * closed, so knex's pool drops it (a frozen server answers nothing more on it, and the server rolls
 * back a transaction on it) rather than handing it to the next statement.
 */
function adaptKnexClient(client: object, deadlines: Deadlines): void {
  const knex = client as KnexPgClient
  const Query = knex.driver?.Query
  const config = knex.config
  const proto = Object.getPrototypeOf(client) as KnexPgClient & { [ADAPTED]?: true }
  const original = proto._query
  if (
    knex.dialect !== 'postgresql' ||
    typeof original !== 'function' ||
    typeof Query !== 'function' ||
    typeof config !== 'object' ||
    config === null
  )
    return
  type QueryClass = new (text: string, values: readonly unknown[]) => object
  const Shaped = shapedQueries(Query as QueryClass)
  adapted.set(config, { Shaped: Shaped === Query ? undefined : Shaped, deadlines })
  keepConnections(client)
  if (proto[ADAPTED] === true) return
  proto[ADAPTED] = true
  proto._query = function (this: KnexPgClient, connection: unknown, obj: KnexQuery) {
    const pg = connection as Partial<PgConnection> | null
    const own = this.config === undefined ? undefined : adapted.get(this.config)
    if (own === undefined || typeof pg?.query !== 'function' || typeof pg.end !== 'function')
      return original.call(this, connection, obj)
    const text = obj.sql
    const shaped =
      own.Shaped === undefined || hasOptions(obj.options) || !text
        ? undefined
        : new own.Shaped(text, obj.bindings ?? [])
    const ran = shaped === undefined ? original.call(this, connection, obj) : undefined
    return new Promise((resolve, reject) => {
      const statement = new OrmStatement(own.deadlines, pg as PgConnection, obj, resolve, reject)
      if (ran !== undefined)
        ran.then(
          () => statement.settle(null),
          (error: Error) => statement.settle(error),
        )
      else statement.send(shaped!)
    })
  }
}

/** One statement of the ORM's, in flight under the deadlines (one object, no closures of its own). */
class OrmStatement implements Running {
  readonly since: number
  end: ((error: Error | undefined, rows: undefined) => void) | undefined
  older: Running | undefined = undefined
  newer: Running | undefined = undefined
  readonly #deadlines: Deadlines
  readonly #pg: PgConnection
  readonly #obj: KnexQuery
  readonly #resolve: (obj: KnexQuery) => void
  readonly #reject: (error: Error) => void

  constructor(
    deadlines: Deadlines,
    pg: PgConnection,
    obj: KnexQuery,
    resolve: (obj: KnexQuery) => void,
    reject: (error: Error) => void,
  ) {
    this.since = deadlines.now()
    this.#deadlines = deadlines
    this.#pg = pg
    this.#obj = obj
    this.#resolve = resolve
    this.#reject = reject
    this.end = expire
    deadlines.add(this)
  }

  send(query: object): void {
    try {
      this.#pg.query(query, (error, response) => {
        if (!error) this.#obj.response = response
        this.settle(error)
      })
    } catch (error) {
      this.settle(error as Error)
    }
  }

  /** Ends the statement once; false when it had ended. node-pg hands a success `null`. */
  settle(error: Error | null | undefined): boolean {
    if (this.end === undefined) return false
    this.end = undefined
    this.#deadlines.remove(this)
    if (error) this.#reject(error)
    else this.#resolve(this.#obj)
    return true
  }

  /** Closes the connection, marked as knex marks a lost one, so that no one takes it again. */
  closeConnection(): void {
    ;(this.#pg as { __knex__disposed?: unknown }).__knex__disposed ??= 'statement timeout'
    this.#pg.end(() => undefined)
  }
}

/** What the deadlines call on a statement past the timeout: it fails, its connection is closed. */
function expire(this: OrmStatement, error: Error | undefined): void {
  if (this.settle(error)) this.closeConnection()
}

/** True when knex has options for node-pg (it sends `{}` when none were given). */
function hasOptions(options: unknown): boolean {
  if (typeof options !== 'object' || options === null) return options !== undefined
  for (const _ in options) return true
  return false
}
