// The read pool's bookkeeping (see `createReadPool` in read-pool.ts): its idle connections and the
// statements waiting for a connection, each with one timer for all rather than one per statement
// (the statements running are under `Deadlines`, statement-deadlines.ts).
import { performance } from 'node:perf_hooks'
import type { ReadDone, ReadQuery } from './read-pool.js'
import type { Running } from './statement-deadlines.js'

/** node-pg's `Query`: built from a text and its values, named afterwards (see `createReadPool`). */
export interface PgQuery {
  name: string | undefined
}

/** A connection of pg's pool, as the read pool uses it. */
export interface PgClient {
  query(
    query: PgQuery,
    callback: (error: Error | undefined, result: { rows: Record<string, unknown>[] }) => void,
  ): void
  on(event: 'error', listener: (error: Error) => void): void
}

/** node-pg's own message for a wait for a connection that timed out (see `isUnavailableError`). */
const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect'

/** How often the idle list gives back to pg's pool the connections a whole period left unused. */
export const IDLE_SWEEP_MS = 1000

/** Where a connection's record is kept on the connection itself. */
export const HELD = Symbol('fw.readPool.held')
export type HeldClient = PgClient & { [HELD]?: Held }

/** A connection pg's pool handed to the read pool, and where it is now. */
export interface Held {
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
export class IdleConnections {
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
export class WaitQueue {
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
