import type { Knex } from '@mikro-orm/knex'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { WaitQueue, type ReadDone, type ReadQuery } from './read-pool-lists.js'
import {
  answered,
  choose,
  corkUntilTurnEnd,
  PIPES,
  sent,
  type PgClient,
  type PgQuery,
  type Pipe,
  type Written,
} from './pipes.js'
import { pipelinedReads } from './pipelined-read.js'
import { shapedQueries } from './row-shapes.js'
import type { Deadlines } from './statement-deadlines.js'

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

/** pg's pool's message for a connection that could not be opened in time. */
const CONNECT_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect'

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
  const reads = new PipelinedReads(driver as PgDriver, settings, max, pipes, deadlines)
  return {
    read: (query, done) => reads.read(query, done),
    size: () => reads.size,
    end: () => reads.end(),
  }
}

/** The read pool's state and its work (see {@link createReadPool}). */
class PipelinedReads {
  readonly #Client: PgDriver['Client']
  // Rows built from one template per statement (see row-shapes.ts), not node-pg's per run.
  readonly #Query: PgDriver['Query']
  // A statement with a name or values: one write, no event emitter (see pipelined-read.ts).
  readonly #Pipelined: ReturnType<typeof pipelinedReads>
  readonly #settings: Record<string, unknown>
  readonly #max: number
  readonly #pipes: number
  readonly #deadlines: Deadlines
  readonly #queue: WaitQueue
  readonly #open: Pipe[] = []
  #sweeps = 0
  #sweeper: NodeJS.Timeout | undefined
  // The event loop's delays while connections are open: the sweep keeps the last period's worst.
  readonly #delays = monitorEventLoopDelay({ resolution: 20 })
  #lastWorstMs = 0
  #ended = false
  /**
   * True when the process's own worst delay (this period or the last) could explain half of a
   * stall of `stalledMs`: what looks stalled may only have been read late.
   */
  readonly #lagging = (stalledMs: number) =>
    2 * Math.max(this.#lastWorstMs, this.#delays.max / 1e6) >= stalledMs

  constructor(
    driver: PgDriver,
    settings: Record<string, unknown>,
    max: number,
    pipes: number,
    deadlines: Deadlines,
  ) {
    this.#Client = driver.Client
    this.#Query = shapedQueries(driver.Query)
    this.#Pipelined = pipelinedReads(driver.Query)
    this.#settings = settings
    this.#max = max
    this.#pipes = pipes
    this.#deadlines = deadlines
    const waitMs = Number(settings.connectionTimeoutMillis ?? 0)
    this.#queue = new WaitQueue(waitMs > 0 ? waitMs : 0)
  }

  get size(): number {
    return this.#open.length
  }

  read(query: ReadQuery, done: ReadDone): void {
    if (this.#ended) return done(new Error(ENDED_MESSAGE), undefined)
    if (this.#queue.empty) this.#dispatch(query, done)
    else this.#queue.push(query, done)
  }

  async end(): Promise<void> {
    this.#ended = true
    this.#queue.close()
    if (this.#sweeper !== undefined) clearTimeout(this.#sweeper)
    this.#sweeper = undefined
    this.#delays.disable()
    // node-pg ends a pipelined connection once what is in flight on it has answered.
    await Promise.all(
      this.#open.splice(0).map((pipe) => {
        pipe.dead = true
        return pipe.client.end().catch(() => undefined)
      }),
    )
  }

  #choose() {
    return choose(this.#open, this.#pipes, this.#max, performance.now(), this.#lagging)
  }

  /** node-pg's query for a statement; undefined when it is refused (its caller is told why). */
  #pgQueryOf(query: ReadQuery, done: ReadDone): PgQuery | undefined {
    // One with a name or values is a `PipelinedRead`; one without goes as node-pg sends it (the
    // simple protocol, whose text may hold several statements), built from its text and values:
    // a config object would cost node-pg a copy through its descriptors (cloneQueryConfig).
    const Pipelined = this.#Pipelined
    try {
      if (Pipelined !== undefined && (query.name !== undefined || query.values.length > 0))
        return new Pipelined(query.text, query.name, query.values) as PgQuery
      const pgQuery = new this.#Query(query.text, query.values)
      pgQuery.name = query.name
      return pgQuery
    } catch (error) {
      done(error as Error, undefined)
      return undefined
    }
  }

  /** Sends `query` where `choose` says, or queues it. */
  #dispatch(query: ReadQuery, done: ReadDone): void {
    const choice = this.#choose()
    if (choice === 'wait') return this.#queue.push(query, done)
    const pgQuery = this.#pgQueryOf(query, done)
    if (pgQuery !== undefined)
      this.#run(choice === 'open' ? this.#openPipe() : choice, pgQuery, done)
  }

  /** Waiting statements, in order, to the connections that can take them now. */
  #drain(): void {
    while (!this.#queue.empty) {
      const choice = this.#choose()
      if (choice === 'wait') return
      const next = this.#queue.take()!
      const pgQuery = this.#pgQueryOf(next.query, next.done)
      if (pgQuery !== undefined)
        this.#run(choice === 'open' ? this.#openPipe() : choice, pgQuery, next.done)
    }
  }

  #openPipe(): Pipe {
    const pgClient = new this.#Client({ ...this.#settings, pipeline: true })
    const pipe: Pipe = {
      client: pgClient,
      inFlight: 0,
      headSince: 0,
      usedAt: this.#sweeps,
      dead: false,
      connected: false,
      corked: false,
      first: undefined,
      last: undefined,
      refused: undefined,
    }
    // A lost connection fails its statements (node-pg calls each back); without a listener, its
    // error would end the process.
    pgClient.on('error', () => this.#drop(pipe))
    pgClient.on('end', () => this.#drop(pipe))
    pgClient.connect((error) => {
      if (error === undefined || error === null) return this.#connected(pipe)
      // The statements written meanwhile fail with this, not node-pg's "Connection terminated";
      // node-pg's connect timeout says it as pg's pool did (see `isUnavailableError`).
      pipe.refused =
        error.message === 'timeout expired'
          ? new Error(CONNECT_TIMEOUT_MESSAGE, { cause: error })
          : error
      this.#drop(pipe)
    })
    this.#open.push(pipe)
    if (this.#sweeper === undefined) {
      this.#sweeper = setTimeout(() => this.#sweep(), IDLE_SWEEP_MS).unref()
      this.#delays.enable()
    }
    return pipe
  }

  /** What was written while it opened reaches the server now: its first statement's time starts. */
  #connected(pipe: Pipe): void {
    pipe.connected = true
    pipe.headSince = performance.now()
    const first = pipe.first
    if (first === undefined) return
    this.#deadlines.remove(first)
    first.since = this.#deadlines.now()
    this.#deadlines.add(first)
  }

  /** A connection that ended takes nothing more; what waited may take its place. */
  #drop(pipe: Pipe): void {
    if (pipe.dead) return
    pipe.dead = true
    const at = this.#open.indexOf(pipe)
    if (at !== -1) this.#open.splice(at, 1)
    if (!this.#queue.empty) this.#drain()
  }

  /** Ends a connection that stopped answering: node-pg fails what is in flight on it. */
  #kill(pipe: Pipe): void {
    this.#drop(pipe)
    pipe.client.connection.stream.destroy()
  }

  /** Closes the connections no statement used for `IDLE_SWEEPS` sweeps. */
  #sweep(): void {
    this.#sweeper = undefined
    const sweeps = ++this.#sweeps
    this.#lastWorstMs = this.#delays.max / 1e6
    this.#delays.reset()
    for (const pipe of this.#open.slice()) {
      if (pipe.inFlight > 0 || sweeps - pipe.usedAt < IDLE_SWEEPS) continue
      this.#drop(pipe)
      pipe.client.end().catch(() => undefined)
    }
    if (this.#open.length > 0)
      this.#sweeper = setTimeout(() => this.#sweep(), IDLE_SWEEP_MS).unref()
    else this.#delays.disable()
  }

  /** Writes a statement on a connection; `done` hears its answer, its error, or its timeout. */
  #run(pipe: Pipe, pgQuery: PgQuery, done: ReadDone): void {
    const deadlines = this.#deadlines
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
      this.#kill(pipe)
    }
    sent(pipe, written, this.#sweeps, deadlines)
    corkUntilTurnEnd(pipe)
    try {
      pipe.client.query(pgQuery, (failure, result) => {
        answered(pipe, deadlines)
        if (failure) finish(pipe.refused ?? failure, undefined)
        else finish(undefined, result.rows)
        if (!this.#queue.empty) this.#drain()
      })
    } catch (failure) {
      // Not written: the connection's order of answers is no longer known.
      finish(failure as Error, undefined)
      this.#kill(pipe)
    }
  }
}

export type { ReadDone, ReadQuery } from './read-pool-lists.js'
