import type { Knex } from '@mikro-orm/knex'
import { shapedQueries } from './row-shapes.js'

/** One statement with its bound values: prepared once per connection under `name` when set. */
export interface ReadQuery {
  readonly name?: string | undefined
  readonly text: string
  readonly values: readonly unknown[]
}

/** Hears how a statement ended: its rows, or what failed. */
export type ReadDone = (
  error: Error | undefined,
  rows: Record<string, unknown>[] | undefined,
) => void

/** Runs one statement and calls `done` once with its rows or its error. */
export type ReadRows = (query: ReadQuery, done: ReadDone) => void

/** A read path of its own for the database plugin's hot lookups, and how to close it. */
export interface ReadPool {
  readonly read: ReadRows
  end(): Promise<void>
}

/** node-pg's `Query`: built from a text and its values, named afterwards (see `createReadPool`). */
interface PgQuery {
  name: string | undefined
}

/** A connection of pg's pool, as the read pool uses it. */
interface PgClient {
  query(
    query: PgQuery,
    callback: (error: Error | undefined, result: { rows: Record<string, unknown>[] }) => void,
  ): void
  once(event: 'error', listener: (error: Error) => void): void
  removeListener(event: 'error', listener: (error: Error) => void): void
}

interface PgPool {
  connect(
    callback: (
      error: Error | undefined,
      client: PgClient,
      release: (error?: Error) => void,
    ) => void,
  ): void
  on(event: 'error', listener: (error: Error) => void): void
  end(): Promise<void>
}

interface PgDriver {
  Pool: new (config: Record<string, unknown>) => PgPool
  Query: new (text: string, values: readonly unknown[]) => PgQuery
}

/** node-pg's own message for a wait for a connection that timed out (see `isUnavailableError`). */
const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect'

/**
 * A `pg.Pool` beside knex's for the plugin's reads on PostgreSQL (bindings, `sql`, `query`,
 * `runStatement` outside a transaction): the same driver module (so the same
 * type parsers MikroORM installs), the same connection settings, as many connections as knex's pool
 * at most, opened on demand and closed when idle. knex's pool (tarn) costs some twenty promises and
 * two timers per acquire and release, a large share of a one-row lookup; pg's pool, called with a
 * callback, costs none. Undefined when knex's connections need more than the settings (a schema
 * search path set per connection) or the client is not node-pg (PGlite).
 *
 * Statements beyond the pool's size wait here, not in pg's pool, which would give each waiter a
 * timer of its own for the acquire timeout (`connectionTimeoutMillis`): under load (64 requests of
 * 20 statements each on 10 connections) that is a thousand timers and closures alive at once, each
 * copied by every scavenge. Here they wait in one queue, in order, with one timer for the whole
 * queue: a statement still waiting after the acquire timeout fails with node-pg's own message, as
 * it did in pg's pool. pg's pool still bounds the opening of a connection with the same setting.
 * A connection whose statement ended goes straight to the next waiting one: back through pg's pool
 * it would arm an idle timer on release that the next `connect()` clears, per statement.
 *
 * The client-side statement timeout (node-pg's `query_timeout`, for a server that stopped
 * answering) is kept here too, with one timer for the statements in flight rather than one each:
 * node-pg's per-statement timers made V8 keep each request's objects past their request (measured:
 * four full collections in 10 s of `/fortunes` load instead of one, and three times the collector
 * threads' CPU). A statement past it fails with node-pg's own message and its connection is closed,
 * as pg's pool did.
 */
export function createReadPool(client: Knex.Client, max: number): ReadPool | undefined {
  const knexClient = client as unknown as {
    dialect?: unknown
    driver?: Partial<PgDriver>
    connectionSettings?: Record<string, unknown>
    searchPath?: unknown
  }
  const driver = knexClient.driver
  const settings = knexClient.connectionSettings
  if (
    knexClient.dialect !== 'postgresql' ||
    typeof driver?.Pool !== 'function' ||
    typeof driver.Query !== 'function' ||
    settings === undefined ||
    knexClient.searchPath !== undefined
  )
    return undefined
  const { query_timeout: statementTimeout, ...connection } = settings
  const pool = new driver.Pool({ ...connection, max })
  // An idle connection that fails is dropped by the pool; without a listener, its error would end
  // the process.
  pool.on('error', () => undefined)
  const waitMs = Number(settings.connectionTimeoutMillis ?? 0)
  const queue = new WaitQueue(max, waitMs > 0 ? waitMs : 0, send)
  const deadlines = new Deadlines(Number(statementTimeout ?? 0))
  // Rows built from one template per statement (see row-shapes.ts), not node-pg's per run.
  const Query = shapedQueries(driver.Query)
  /** node-pg's query for a statement; undefined when it is refused (its caller is told why). */
  function pgQueryOf(query: ReadQuery, done: ReadDone): PgQuery | undefined {
    // A query handed over as a config object is copied property by property through its
    // descriptors (node-pg's cloneQueryConfig, ≈ 1.1 µs); one built from its text and values is
    // not (≈ 0.05 µs), and its name is a plain field the driver reads when it sends it.
    let pgQuery: PgQuery
    try {
      pgQuery = new Query(query.text, query.values)
    } catch (error) {
      done(error as Error, undefined)
      return undefined
    }
    pgQuery.name = query.name
    return pgQuery
  }
  function send(query: ReadQuery, done: ReadDone): void {
    const pgQuery = pgQueryOf(query, done)
    // Refused before it was sent: its place goes to the next one.
    if (pgQuery === undefined) return queue.finished()
    pool.connect((error, client, release) => {
      if (error) {
        queue.finished()
        done(error, undefined)
        return
      }
      run(client, release, pgQuery, done)
    })
  }
  /**
   * Runs a statement on a connection of the pool. After it, a healthy connection goes straight to
   * the next waiting statement, if any: going back through pg's pool would arm an idle timer on
   * release and clear it on the next connect, per statement. Otherwise, as pg's `pool.query`: the
   * connection goes back to the pool, or is closed after an error (the statement's, the
   * connection's, or the client-side timeout's).
   */
  function run(
    client: PgClient,
    release: (error?: Error) => void,
    pgQuery: PgQuery,
    done: ReadDone,
  ): void {
    const running: Running = { since: deadlines.now(), end: undefined }
    const end = (failure: Error | undefined, rows: Record<string, unknown>[] | undefined) => {
      if (running.end === undefined) return
      running.end = undefined
      client.removeListener('error', lost)
      deadlines.remove(running)
      if (failure !== undefined || !handOver(client, release)) {
        release(failure)
        queue.finished()
      }
      done(failure, rows)
    }
    const lost = (failure: Error) => end(failure, undefined)
    running.end = end
    client.once('error', lost)
    deadlines.add(running)
    try {
      client.query(pgQuery, (failure, result) =>
        failure ? end(failure, undefined) : end(undefined, result.rows),
      )
    } catch (failure) {
      end(failure as Error, undefined)
    }
  }
  /** The next waiting statement that can be sent, run on `client`; false when none waits. */
  function handOver(client: PgClient, release: (error?: Error) => void): boolean {
    for (let next = queue.take(); next !== undefined; next = queue.take()) {
      const pgQuery = pgQueryOf(next.query, next.done)
      if (pgQuery === undefined) continue
      run(client, release, pgQuery, next.done)
      return true
    }
    return false
  }
  return {
    read: (query, done) => queue.submit(query, done),
    end: () => {
      queue.close()
      deadlines.close()
      return pool.end()
    },
  }
}

/** A statement waiting for one of the pool's connections, and when it started waiting. */
interface Waiting {
  readonly query: ReadQuery
  readonly done: ReadDone
  readonly since: number
  next: Waiting | undefined
}

/**
 * At most `max` statements at the pool at once; the others wait in order, in a linked list (a
 * statement taken from it is no longer referenced, so nothing of its request outlives it here).
 * One timer, armed while anything waits, fails those that waited `waitMs` (0: they wait as long as
 * it takes).
 */
class WaitQueue {
  readonly #max: number
  readonly #waitMs: number
  readonly #send: (query: ReadQuery, done: ReadDone) => void
  #first: Waiting | undefined
  #last: Waiting | undefined
  #active = 0
  #timer: NodeJS.Timeout | undefined

  constructor(max: number, waitMs: number, send: (query: ReadQuery, done: ReadDone) => void) {
    this.#max = max
    this.#waitMs = waitMs
    this.#send = send
  }

  submit(query: ReadQuery, done: ReadDone): void {
    if (this.#active < this.#max && this.#first === undefined) {
      this.#active++
      this.#send(query, done)
      return
    }
    const waiting: Waiting = {
      query,
      done,
      since: this.#waitMs > 0 ? performance.now() : 0,
      next: undefined,
    }
    if (this.#last === undefined) this.#first = waiting
    else this.#last.next = waiting
    this.#last = waiting
    if (this.#waitMs > 0 && this.#timer === undefined) this.#arm(this.#waitMs)
  }

  /** The next waiting statement, taking the place of one that ended (a connection handed over). */
  take(): Waiting | undefined {
    return this.#shift()
  }

  /** A statement sent to the pool has ended: the next waiting one takes its place. */
  finished(): void {
    this.#active--
    const next = this.#shift()
    if (next === undefined) return
    this.#active++
    this.#send(next.query, next.done)
  }

  /** The pool is closing: nothing waits any longer. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    for (let next = this.#shift(); next !== undefined; next = this.#shift())
      next.done(new Error('Cannot use a pool after calling end on the pool'), undefined)
  }

  #shift(): Waiting | undefined {
    const first = this.#first
    if (first === undefined) return undefined
    this.#first = first.next
    if (this.#first === undefined) this.#last = undefined
    first.next = undefined
    return first
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#expire(), ms)
  }

  /** Fails what waited too long (the oldest, at the head), then waits for the next one's turn. */
  #expire(): void {
    this.#timer = undefined
    const now = performance.now()
    for (let oldest = this.#first; oldest !== undefined; oldest = this.#first) {
      const left = oldest.since + this.#waitMs - now
      if (left > 0) {
        this.#arm(left)
        return
      }
      this.#shift()
      oldest.done(new Error(ACQUIRE_TIMEOUT_MESSAGE), undefined)
    }
  }
}

/** node-pg's own message for a statement past the client-side timeout (see `isUnavailableError`). */
const STATEMENT_TIMEOUT_MESSAGE = 'Query read timeout'

/** A statement on a connection: when it was sent, and how it ends (undefined once it has). */
interface Running {
  readonly since: number
  end: ((error: Error | undefined, rows: undefined) => void) | undefined
}

/**
 * The client-side statement timeout for the statements in flight (at most the pool's size): one
 * timer while any is, firing when the oldest is due; 0 ms: none.
 */
class Deadlines {
  readonly #ms: number
  readonly #running = new Set<Running>()
  #timer: NodeJS.Timeout | undefined

  constructor(ms: number) {
    this.#ms = ms > 0 ? ms : 0
  }

  now(): number {
    return this.#ms > 0 ? performance.now() : 0
  }

  add(running: Running): void {
    if (this.#ms === 0) return
    this.#running.add(running)
    this.#timer ??= setTimeout(() => this.#expire(), this.#ms)
  }

  remove(running: Running): void {
    this.#running.delete(running)
  }

  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** Fails the statements past the timeout; waits for the next one due, if any runs. */
  #expire(): void {
    this.#timer = undefined
    const now = performance.now()
    let next = Infinity
    for (const running of [...this.#running]) {
      const left = running.since + this.#ms - now
      if (left <= 0) running.end?.(new Error(STATEMENT_TIMEOUT_MESSAGE), undefined)
      else next = Math.min(next, left)
    }
    if (next !== Infinity) this.#timer = setTimeout(() => this.#expire(), next)
  }
}
