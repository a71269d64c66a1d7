// The statements waiting for a connection of the read pool (see `createReadPool` in read-pool.ts),
// with one timer for all of them rather than one per statement (the statements sent are under
// `Deadlines`, statement-deadlines.ts).
import { performance } from 'node:perf_hooks'

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

/** node-pg's own message for a wait for a connection that timed out (see `isUnavailableError`). */
const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect'

/** A statement waiting for one of the pool's connections, and when it started waiting. */
interface Waiting {
  readonly query: ReadQuery
  readonly done: ReadDone
  readonly since: number
  next: Waiting | undefined
}

/**
 * The statements that found every connection stalled, in order, in a linked list (a statement
 * taken from it is no longer referenced, so nothing of its request outlives it here). One timer,
 * armed while anything waits, fails those that waited `waitMs` (0: they wait as long as it takes).
 */
export class WaitQueue {
  readonly #waitMs: number
  #first: Waiting | undefined
  #last: Waiting | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(waitMs: number) {
    this.#waitMs = waitMs
  }

  get empty(): boolean {
    return this.#first === undefined
  }

  push(query: ReadQuery, done: ReadDone): void {
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

  /** The statement that waited longest, out of the queue; undefined when none waits. */
  take(): Waiting | undefined {
    const first = this.#first
    if (first === undefined) return undefined
    this.#first = first.next
    if (this.#first === undefined) this.#last = undefined
    first.next = undefined
    return first
  }

  /** The pool is closing: nothing waits any longer. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    for (let next = this.take(); next !== undefined; next = this.take())
      next.done(new Error('Cannot use a pool after calling end on the pool'), undefined)
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
      this.take()
      oldest.done(new Error(ACQUIRE_TIMEOUT_MESSAGE), undefined)
    }
  }
}
