import type { Knex } from '@mikro-orm/knex'

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

interface PgPool {
  query(
    query: PgQuery,
    callback: (error: Error | undefined, result: { rows: Record<string, unknown>[] }) => void,
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
  const pool = new driver.Pool({ ...settings, max })
  // An idle connection that fails is dropped by the pool; without a listener, its error would end
  // the process.
  pool.on('error', () => undefined)
  const waitMs = Number(settings.connectionTimeoutMillis ?? 0)
  const queue = new WaitQueue(max, waitMs > 0 ? waitMs : 0, send)
  const { Query } = driver
  function send(query: ReadQuery, done: ReadDone): void {
    // A query handed over as a config object is copied property by property through its
    // descriptors (node-pg's cloneQueryConfig, ≈ 1.1 µs); one built from its text and values is
    // not (≈ 0.05 µs), and its name is a plain field the driver reads when it sends it.
    let pgQuery: PgQuery
    try {
      pgQuery = new Query(query.text, query.values)
    } catch (error) {
      // Refused before it was sent: its place goes to the next one, its caller hears why.
      queue.finished()
      done(error as Error, undefined)
      return
    }
    pgQuery.name = query.name
    pool.query(pgQuery, (error, result) => {
      queue.finished()
      if (error) done(error, undefined)
      else done(undefined, result.rows)
    })
  }
  return {
    read: (query, done) => queue.submit(query, done),
    end: () => {
      queue.close()
      return pool.end()
    },
  }
}

/** A statement waiting for one of the pool's connections, and when it started waiting. */
interface Waiting {
  readonly query: ReadQuery
  readonly done: ReadDone
  readonly since: number
}

/**
 * At most `max` statements at the pool at once; the others wait in order. One timer, armed while
 * anything waits, fails those that waited `waitMs` (0: they wait as long as it takes).
 */
class WaitQueue {
  readonly #max: number
  readonly #waitMs: number
  readonly #send: (query: ReadQuery, done: ReadDone) => void
  /** Waiting statements, oldest first from `#head` (a consumed prefix is dropped in batches). */
  #waiting: Waiting[] = []
  #head = 0
  #active = 0
  #timer: NodeJS.Timeout | undefined

  constructor(max: number, waitMs: number, send: (query: ReadQuery, done: ReadDone) => void) {
    this.#max = max
    this.#waitMs = waitMs
    this.#send = send
  }

  submit(query: ReadQuery, done: ReadDone): void {
    if (this.#active < this.#max && this.#head === this.#waiting.length) {
      this.#active++
      this.#send(query, done)
      return
    }
    this.#waiting.push({ query, done, since: this.#waitMs > 0 ? performance.now() : 0 })
    if (this.#waitMs > 0 && this.#timer === undefined) this.#arm(this.#waitMs)
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
    if (this.#head === this.#waiting.length) return undefined
    const next = this.#waiting[this.#head]!
    this.#head++
    if (this.#head === this.#waiting.length) {
      this.#waiting = []
      this.#head = 0
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head)
      this.#head = 0
    }
    return next
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#expire(), ms)
  }

  /** Fails what waited too long (the oldest, at the head), then waits for the next one's turn. */
  #expire(): void {
    this.#timer = undefined
    const now = performance.now()
    while (this.#head < this.#waiting.length) {
      const oldest = this.#waiting[this.#head]!
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
