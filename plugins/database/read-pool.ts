import type { Knex } from '@mikro-orm/knex'
import {
  HELD,
  IDLE_SWEEP_MS,
  IdleConnections,
  WaitQueue,
  type Held,
  type HeldClient,
  type PgClient,
  type PgQuery,
} from './read-pool-lists.js'
import { shapedQueries } from './row-shapes.js'
import type { Deadlines, Running } from './statement-deadlines.js'

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
 * The client-side statement timeout (for a server that stopped answering) is `deadlines`, the
 * database's one timer for the statements in flight (see statement-deadlines.ts). A statement past
 * it fails with node-pg's own message and its connection is closed, as pg's pool did.
 */
export function createReadPool(
  client: Knex.Client,
  max: number,
  deadlines: Deadlines,
): ReadPool | undefined {
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
    const running: Running = {
      since: deadlines.now(),
      end: undefined,
      older: undefined,
      newer: undefined,
    }
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
      idle.close()
      return pool.end()
    },
  }
}
