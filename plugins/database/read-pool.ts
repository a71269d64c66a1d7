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
  on(event: 'error', listener: (error: Error) => void): void
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
 * callback, costs no promise (and its timers are avoided too, below). Undefined when knex's
 * connections need more than the settings (a schema search path set per connection) or the client
 * is not node-pg (PGlite).
 *
 * Statements beyond the pool's size wait here, not in pg's pool, which would give each waiter a
 * timer of its own for the acquire timeout (`connectionTimeoutMillis`): under load (64 requests of
 * 20 statements each on 10 connections) that is a thousand timers and closures alive at once, each
 * copied by every scavenge. Here they wait in one queue, in order, with one timer for the whole
 * queue: a statement still waiting after the acquire timeout fails with node-pg's own message, as
 * it did in pg's pool. pg's pool still bounds the opening of a connection with the same setting.
 * A connection whose statement ended goes straight to the next waiting statement, or into the read
 * pool's own idle list (`IdleConnections`), where the next statement takes it: back through pg's
 * pool, every release would arm an idle timer and every checkout a timer for the acquire timeout,
 * two timers per statement.
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
  const idle = new IdleConnections(IDLE_SWEEP_MS, (held) => giveBack(held, undefined))
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
    const held = idle.take()
    if (held !== undefined) return run(held, pgQuery, done)
    pool.connect((error, client, release) => {
      if (error) {
        queue.finished()
        done(error, undefined)
        return
      }
      run(hold(client, release), pgQuery, done)
    })
  }
  /** A connection pg's pool has just handed over, as the read pool keeps it (one record each). */
  function hold(client: PgClient, release: (error?: Error) => void): Held {
    const known = (client as HeldClient)[HELD]
    if (known !== undefined) {
      known.release = release
      return known
    }
    const held: Held = { client, release, running: undefined, state: 'running', idleSince: 0 }
    ;(client as HeldClient)[HELD] = held
    // One listener for the connection's life. An error while a statement runs ends the statement
    // (and the connection); while idle here, the connection leaves the list and pg's pool closes
    // it; back in pg's pool, pg's own listener has it. Without one, it would end the process.
    client.on('error', (error) => {
      if (held.state === 'running') held.running?.end?.(error, undefined)
      else if (held.state === 'idle') {
        idle.remove(held)
        giveBack(held, error)
      }
    })
    return held
  }
  /** Back to pg's pool: kept there, or closed after an error. */
  function giveBack(held: Held, error: Error | undefined): void {
    held.state = 'pooled'
    held.release(error)
  }
  /**
   * Runs a statement on a connection. After it, a healthy connection goes straight to the next
   * waiting statement, if any, else to the idle list; after an error (the statement's, the
   * connection's, or the client-side timeout's) it goes back to pg's pool, which closes it.
   */
  function run(held: Held, pgQuery: PgQuery, done: ReadDone): void {
    const running: Running = { since: deadlines.now(), end: undefined }
    const end = (failure: Error | undefined, rows: Record<string, unknown>[] | undefined) => {
      if (running.end === undefined) return
      running.end = undefined
      held.running = undefined
      deadlines.remove(running)
      if (failure !== undefined) {
        giveBack(held, failure)
        queue.finished()
      } else if (!handOver(held)) {
        idle.add(held)
        queue.finished()
      }
      done(failure, rows)
    }
    running.end = end
    held.running = running
    held.state = 'running'
    deadlines.add(running)
    try {
      held.client.query(pgQuery, (failure, result) =>
        failure ? end(failure, undefined) : end(undefined, result.rows),
      )
    } catch (failure) {
      end(failure as Error, undefined)
    }
  }
  /** The next waiting statement that can be sent, run on `held`; false when none waits. */
  function handOver(held: Held): boolean {
    for (let next = queue.take(); next !== undefined; next = queue.take()) {
      const pgQuery = pgQueryOf(next.query, next.done)
      if (pgQuery === undefined) continue
      run(held, pgQuery, next.done)
      return true
    }
    return false
  }
  return {
    read: (query, done) => queue.submit(query, done),
    end: () => {
      queue.close()
      deadlines.close()
      idle.close()
      return pool.end()
    },
  }
}

/** How often the idle list gives back to pg's pool the connections a whole period left unused. */
const IDLE_SWEEP_MS = 1000

/** Where a connection's record is kept on the connection itself. */
const HELD = Symbol('fw.readPool.held')
type HeldClient = PgClient & { [HELD]?: Held }

/** A connection pg's pool handed to the read pool, and where it is now. */
interface Held {
  readonly client: PgClient
  /** pg's pool's release for the current checkout. */
  release: (error?: Error) => void
  /** The statement running on it, if any. */
  running: Running | undefined
  /** Running a statement, idle in the read pool's list, or back in pg's pool. */
  state: 'running' | 'idle' | 'pooled'
  /** The idle list's sweep count when it went idle. */
  idleSince: number
}

/**
 * The read pool's idle connections, the most recently used last, which the next statement takes.
 * One timer, armed while the list holds any, sweeps it every `sweepMs`: a connection no statement
 * took for a whole period goes back to pg's pool (`giveBack`), whose idle timeout closes it as
 * before. After `close()`, a connection added goes back at once.
 */
class IdleConnections {
  readonly #list: Held[] = []
  readonly #sweepMs: number
  readonly #giveBack: (held: Held) => void
  #sweeps = 0
  #timer: NodeJS.Timeout | undefined
  #closed = false

  constructor(sweepMs: number, giveBack: (held: Held) => void) {
    this.#sweepMs = sweepMs
    this.#giveBack = giveBack
  }

  add(held: Held): void {
    if (this.#closed) return this.#giveBack(held)
    held.state = 'idle'
    held.idleSince = this.#sweeps
    this.#list.push(held)
    this.#timer ??= setTimeout(() => this.#sweep(), this.#sweepMs).unref()
  }

  /** The connection used last, out of the list; undefined when none is idle. */
  take(): Held | undefined {
    return this.#list.pop()
  }

  remove(held: Held): void {
    const at = this.#list.indexOf(held)
    if (at !== -1) this.#list.splice(at, 1)
  }

  /** Every idle connection back to pg's pool (the read pool is ending). */
  close(): void {
    this.#closed = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    for (const held of this.#list.splice(0)) this.#giveBack(held)
  }

  /** Gives back those idle since before the previous sweep (the oldest come first in the list). */
  #sweep(): void {
    this.#timer = undefined
    this.#sweeps++
    let unused = 0
    while (unused < this.#list.length && this.#list[unused]!.idleSince < this.#sweeps - 1) unused++
    for (const held of this.#list.splice(0, unused)) this.#giveBack(held)
    if (this.#list.length > 0) this.#timer = setTimeout(() => this.#sweep(), this.#sweepMs).unref()
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
