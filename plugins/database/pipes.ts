// The read pool's connections (see `createReadPool` in read-pool.ts), each in node-pg's pipeline
// mode: statements are written back to back without waiting for the answers before them, and
// PostgreSQL answers them in order. Which connection the next statement goes to is decided here.
import { performance } from 'node:perf_hooks'
import type { Deadlines, Running } from './statement-deadlines.js'

/** node-pg's `Query`: built from a text and its values, named afterwards (see `createReadPool`). */
export interface PgQuery {
  name: string | undefined
}

/** node-pg's `Client` (8.23+, `pipeline: true`), as the read pool uses it. */
export interface PgClient {
  connect(callback: (error: Error | undefined) => void): void
  query(
    query: PgQuery,
    callback: (error: Error | undefined, result: { rows: Record<string, unknown>[] }) => void,
  ): void
  on(event: 'error' | 'end', listener: (error?: Error) => void): void
  end(): Promise<void>
  /** node-pg's socket wrapper: destroying its stream fails every statement in flight on it. */
  readonly connection: { readonly stream: { destroy(): void; cork(): void; uncork(): void } }
}

/**
 * A connection of the read pool: how many of its statements are unanswered, and since when the
 * oldest of them (the one PostgreSQL is running) has been the oldest.
 */
export interface Pipe {
  readonly client: PgClient
  /** Statements written and not yet answered. */
  inFlight: number
  /** When the statement the server is running now became the first unanswered one. */
  headSince: number
  /** Its statements in flight, in the order written (so answered), linked through `next`. */
  first: Written | undefined
  last: Written | undefined
  /** The idle sweep's count when a statement last used it. */
  usedAt: number
  /** Ended (by the server, the network, a timeout or the pool): takes nothing more. */
  dead: boolean
  /** Its socket holds what is written until the turn's end (see `corkUntilTurnEnd`). */
  corked: boolean
  /** Opened: until then its statements wait for the connection, not for the server's answers. */
  connected: boolean
  /** Why it could not be opened: what its statements fail with. */
  refused: Error | undefined
}

/**
 * A connection whose current statement has gone unanswered this long is passed over while another
 * is not: the statements written behind it would wait for it (PostgreSQL runs a connection's
 * statements one after another). Long enough that the process's own delays (a busy event loop
 * reads the answers late, on every connection alike) do not open connections for nothing.
 * Guarded by pipelining.test.ts ("a slow statement on every connection …") and read-pool.test.ts.
 */
export const STALLED_MS = 250

/** How many pipelined connections the read pool keeps at most while none is stalled. */
export const PIPES = 3

/** Where the next statement goes, or what is needed first. */
export type Choice = Pipe | 'open' | 'wait'

/**
 * The connection for the next statement: an idle one first; else, while fewer than `pipes` are
 * open, a new one; else the one with the fewest statements in flight among those not stalled.
 * When every open one is stalled: if the process itself may be what made them late (`lagging`,
 * given the youngest stall: its event loop reads every connection's answers late, so all look
 * stalled alike), the one with the fewest in flight; else a new one up to `max`, else the
 * statement waits for one.
 */
export function choose(
  open: readonly Pipe[],
  pipes: number,
  max: number,
  now: number,
  lagging: (stalledMs: number) => boolean,
): Choice {
  let best: Pipe | undefined
  let least: Pipe | undefined
  let youngest = Infinity
  for (const pipe of open) {
    if (pipe.inFlight === 0) return pipe
    if (least === undefined || pipe.inFlight < least.inFlight) least = pipe
    const age = now - pipe.headSince
    // Still opening: bounded by the acquire timeout, not stalled.
    if (pipe.connected && age >= STALLED_MS) {
      if (age < youngest) youngest = age
      continue
    }
    if (best === undefined || pipe.inFlight < best.inFlight) best = pipe
  }
  if (open.length < pipes) return 'open'
  if (best !== undefined) return best
  if (lagging(youngest)) return least!
  return open.length < max ? 'open' : 'wait'
}

/**
 * A statement written on a connection. Only the first unanswered one of each connection is under
 * the client-side statement timeout, from when it became the first: the others wait for it, and
 * the server's own timeout (`statement_timeout`) counts each from when it starts too, so a slow
 * statement cancelled by the server fails alone, not the statements written behind it.
 */
export interface Written extends Running {
  since: number
  next: Written | undefined
}

/** A statement written on `pipe`: under the timeout at once when it is the only one. */
export function sent(pipe: Pipe, written: Written, sweeps: number, deadlines: Deadlines): void {
  written.next = undefined
  pipe.inFlight++
  pipe.usedAt = sweeps
  if (pipe.last !== undefined) {
    pipe.last.next = written
    pipe.last = written
    return
  }
  pipe.first = pipe.last = written
  pipe.headSince = performance.now()
  written.since = deadlines.now()
  deadlines.add(written)
}

/** The first statement of `pipe` answered (its results or its error): the next one is now the server's. */
export function answered(pipe: Pipe, deadlines: Deadlines): void {
  const head = pipe.first
  if (head === undefined) return
  pipe.inFlight--
  const next = (pipe.first = head.next)
  head.next = undefined
  if (next === undefined) {
    pipe.last = undefined
    return
  }
  pipe.headSince = performance.now()
  next.since = deadlines.now()
  deadlines.add(next)
}

/** The connections holding what was written this turn of the event loop (see `corkUntilTurnEnd`). */
const corked: Pipe[] = []

/**
 * Holds what is written on `pipe` until the end of the current turn of the event loop (one
 * `setImmediate`, after the turn's I/O callbacks), so that the statements of every request read in
 * one turn leave in one write per connection, as postgres.js gathers them. Holding only to the
 * end of the tick (`process.nextTick`) wrote once per request: node delivers each socket's data in
 * a callback of its own, and ticks end after each. The write system call is what costs (a third
 * of the server's time under load in TechEmpower's db test, a statement a write). Guarded by
 * bench/techempower.ts (db); the order of answers by pipelining.test.ts (a burst of 200 requests).
 */
export function corkUntilTurnEnd(pipe: Pipe): void {
  if (pipe.corked) return
  pipe.corked = true
  pipe.client.connection.stream.cork()
  if (corked.push(pipe) === 1) setImmediate(uncorkAll)
}

function uncorkAll(): void {
  for (let i = 0; i < corked.length; i++) {
    const pipe = corked[i]!
    pipe.corked = false
    pipe.client.connection.stream.uncork()
  }
  corked.length = 0
}
