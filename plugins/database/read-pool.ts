import type { Knex } from '@mikro-orm/knex'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { WaitQueue } from './read-pool-lists.js'
import {
  answered,
  choose,
  corkUntilTickEnd,
  PIPES,
  STALLED_MS,
  sent,
  type PgClient,
  type PgQuery,
  type Pipe,
  type Written,
} from './pipes.js'
import { shapedQueries } from './row-shapes.js'
import type { Deadlines } from './statement-deadlines.js'

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
  /** The connections open now (what the server holds for this process's reads). */
  readonly size: () => number
  end(): Promise<void>
}

interface PgDriver {
  Client: new (config: Record<string, unknown>) => PgClient
  Query: new (text: string, values: readonly unknown[]) => PgQuery
}

/** How often idle connections are looked for; one unused for `IDLE_SWEEPS` sweeps is closed. */
const IDLE_SWEEP_MS = 1000
const IDLE_SWEEPS = 10

/**
 * How much later than the server's `statement_timeout` the read pool's client-side timeout fires:
 * a statement the server cancels (57014) fails alone, and its connection serves the statements
 * written behind it; the client's timeout, which closes the connection and so fails those too, is
 * for a server that stopped answering. Guarded by pipelining.test.ts ("a statement past the
 * timeout answers 503; those written with it answer 200").
 */
export const SERVER_FIRST_MS = 1000

/** node-pg's own message for a pool used after its end (as pg's pool said it). */
const ENDED_MESSAGE = 'Cannot use a pool after calling end on the pool'

/**
 * The plugin's own connections for its reads on PostgreSQL (bindings, `sql`, `query`,
 * `runStatement` outside a transaction), beside knex's pool: the same driver module (so the same
 * type parsers MikroORM installs), the same connection settings. Undefined when knex's connections
 * need more than the settings (a schema search path set per connection) or the client is not
 * node-pg (PGlite).
 *
 * Each connection is in node-pg's pipeline mode: the statements of concurrent requests are written
 * on it back to back, each followed by its own Sync (so each is its own implicit transaction and
 * its error ends only itself), and PostgreSQL answers them in order. A statement goes to an idle
 * connection, else to a new one while fewer than `pipes` are open, else to the open one with the
 * fewest statements in flight (see `choose` in pipes.ts). A connection whose current statement has
 * run for `STALLED_MS` is passed over (what is written behind it waits for it); when all are (and
 * the process's own event loop is not what made them late), a new one is opened up to `max`, and
 * past that the statement waits for one, at most the acquire
 * timeout (`connectionTimeoutMillis`, node-pg's own message), in one queue with one timer. Opening
 * a connection is bounded by the same setting. A connection unused for ten seconds is closed.
 *
 * The client-side statement timeout (for a server that stopped answering) is `deadlines`, the
 * database's one timer for the statements in flight (see statement-deadlines.ts), counted for each
 * statement from when the ones written before it on its connection were answered (see `Written`).
 * A statement past it fails with node-pg's own message and its connection is closed: the
 * statements written behind it fail as on a lost connection (node-pg's "Connection terminated
 * unexpectedly", 503 in a request), and the next statements go to the others or a new one.
 */
export function createReadPool(
  client: Knex.Client,
  max: number,
  deadlines: Deadlines,
  pipes = PIPES,
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
    typeof driver?.Client !== 'function' ||
    typeof driver.Query !== 'function' ||
    settings === undefined ||
    knexClient.searchPath !== undefined
  )
    return undefined
  const Client = driver.Client
  const waitMs = Number(settings.connectionTimeoutMillis ?? 0)
  const queue = new WaitQueue(waitMs > 0 ? waitMs : 0)
  const open: Pipe[] = []
  let sweeps = 0
  let sweeper: NodeJS.Timeout | undefined
  // The event loop's delays while connections are open: the sweep keeps the last period's worst.
  const delays = monitorEventLoopDelay({ resolution: 20 })
  let lastWorstMs = 0
  /** True when the process itself has been late by half `STALLED_MS` (this period or the last). */
  const lagging = () => Math.max(lastWorstMs, delays.max / 1e6) >= STALLED_MS / 2
  let ended = false
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
  /** Sends `query` where `choose` says, or queues it. */
  function dispatch(query: ReadQuery, done: ReadDone): void {
    const choice = choose(open, pipes, max, performance.now(), lagging)
    if (choice === 'wait') return queue.push(query, done)
    const pgQuery = pgQueryOf(query, done)
    if (pgQuery !== undefined) run(choice === 'open' ? openPipe() : choice, pgQuery, done)
  }
  /** Waiting statements, in order, to the connections that can take them now. */
  function drain(): void {
    for (;;) {
      if (queue.empty) return
      const choice = choose(open, pipes, max, performance.now(), lagging)
      if (choice === 'wait') return
      const next = queue.take()!
      const pgQuery = pgQueryOf(next.query, next.done)
      if (pgQuery !== undefined) run(choice === 'open' ? openPipe() : choice, pgQuery, next.done)
    }
  }
  function openPipe(): Pipe {
    const pgClient = new Client({ ...settings, pipeline: true })
    const pipe: Pipe = {
      client: pgClient,
      inFlight: 0,
      headSince: 0,
      usedAt: sweeps,
      dead: false,
      connected: false,
      corked: false,
      first: undefined,
      last: undefined,
      refused: undefined,
    }
    // A lost connection fails its statements (node-pg calls each back); without a listener, its
    // error would end the process.
    pgClient.on('error', () => drop(pipe))
    pgClient.on('end', () => drop(pipe))
    pgClient.connect((error) => {
      if (error === undefined || error === null) {
        pipe.connected = true
        // What was written meanwhile reaches the server now: its first statement's time starts.
        pipe.headSince = performance.now()
        const first = pipe.first
        if (first !== undefined) {
          deadlines.remove(first)
          first.since = deadlines.now()
          deadlines.add(first)
        }
        return
      }
      // The statements written meanwhile fail with this, not node-pg's "Connection terminated".
      pipe.refused = error
      drop(pipe)
    })
    open.push(pipe)
    if (sweeper === undefined) {
      sweeper = setTimeout(sweep, IDLE_SWEEP_MS).unref()
      delays.enable()
    }
    return pipe
  }
  /** A connection that ended takes nothing more; what waited may take its place. */
  function drop(pipe: Pipe): void {
    if (pipe.dead) return
    pipe.dead = true
    const at = open.indexOf(pipe)
    if (at !== -1) open.splice(at, 1)
    if (!queue.empty) drain()
  }
  /** Ends a connection that stopped answering: node-pg fails what is in flight on it. */
  function kill(pipe: Pipe): void {
    drop(pipe)
    pipe.client.connection.stream.destroy()
  }
  /** Closes the connections no statement used for `IDLE_SWEEPS` sweeps. */
  function sweep(): void {
    sweeper = undefined
    sweeps++
    lastWorstMs = delays.max / 1e6
    delays.reset()
    for (const pipe of open.slice()) {
      if (pipe.inFlight > 0 || sweeps - pipe.usedAt < IDLE_SWEEPS) continue
      drop(pipe)
      pipe.client.end().catch(() => undefined)
    }
    if (open.length > 0) sweeper = setTimeout(sweep, IDLE_SWEEP_MS).unref()
    else delays.disable()
  }
  /** Writes a statement on a connection; `done` hears its answer, its error, or its timeout. */
  function run(pipe: Pipe, pgQuery: PgQuery, done: ReadDone): void {
    const written: Written = {
      since: 0,
      end: undefined,
      older: undefined,
      newer: undefined,
      next: undefined,
    }
    const finish = (failure: Error | undefined, rows: Record<string, unknown>[] | undefined) => {
      if (written.end === undefined) return
      written.end = undefined
      deadlines.remove(written)
      done(failure, rows)
    }
    written.end = (failure) => {
      finish(failure, undefined)
      kill(pipe)
    }
    sent(pipe, written, sweeps, deadlines)
    corkUntilTickEnd(pipe)
    try {
      pipe.client.query(pgQuery, (failure, result) => {
        answered(pipe, deadlines)
        if (failure) finish(pipe.refused ?? failure, undefined)
        else finish(undefined, result.rows)
        if (!queue.empty) drain()
      })
    } catch (failure) {
      // Not written: the connection's order of answers is no longer known.
      finish(failure as Error, undefined)
      kill(pipe)
    }
  }
  return {
    read(query, done) {
      if (ended) return done(new Error(ENDED_MESSAGE), undefined)
      if (queue.empty) dispatch(query, done)
      else queue.push(query, done)
    },
    size: () => open.length,
    async end() {
      ended = true
      queue.close()
      if (sweeper !== undefined) clearTimeout(sweeper)
      sweeper = undefined
      delays.disable()
      // node-pg ends a pipelined connection once what is in flight on it has answered.
      await Promise.all(
        open.splice(0).map((pipe) => {
          pipe.dead = true
          return pipe.client.end().catch(() => undefined)
        }),
      )
    },
  }
}
