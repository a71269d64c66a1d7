// The client-side statement timeout, for a server that stopped answering (a frozen host, a cut
// network) and so cannot cancel anything itself: shared by the read pool's statements and
// MikroORM's (see orm-statements.ts), one timer for all of them rather than one per statement.
//
// node-pg has a timeout of its own (`query_timeout`), a timer armed and cleared per statement.
// Measured on PostgreSQL: those timers made V8 keep each request's objects past their request (four
// full collections in 10 s of `/fortunes` load instead of one), and cost a MikroORM statement 13–16%
// of its CPU (bench/tools/orm-timeouts.mjs). So fw never sets it, and keeps the timeout here.
import { performance } from 'node:perf_hooks'

/** node-pg's own message for a statement past the client-side timeout (see `isUnavailableError`). */
const STATEMENT_TIMEOUT_MESSAGE = 'Query read timeout'

/**
 * A statement on a connection: when it was sent, and how it ends (undefined once it has); `older`
 * and `newer` are the deadlines' own links.
 */
export interface Running {
  readonly since: number
  end: ((error: Error | undefined, rows: undefined) => void) | undefined
  older: Running | undefined
  newer: Running | undefined
}

/**
 * The client-side statement timeout for the statements in flight: one timer while any is, firing
 * when the oldest is due; 0 ms: none. A statement past it ends with node-pg's own message; what
 * its connection becomes is its owner's business (both owners close it).
 *
 * The statements are a list linked through themselves, oldest first (each is added as it starts),
 * not a `Set`: with a `Set`, a MikroORM statement cost 4–5 µs more CPU and V8 ran twice the full
 * collections (bench/tools/orm-timeouts.mjs), an entry added and deleted per statement.
 */
export class Deadlines {
  readonly #ms: number
  #oldest: Running | undefined
  #newest: Running | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(ms: number) {
    this.#ms = ms > 0 ? ms : 0
  }

  /** When a statement starts, as `Running.since` wants it (0 when there is no timeout). */
  now(): number {
    return this.#ms > 0 ? performance.now() : 0
  }

  add(running: Running): void {
    if (this.#ms === 0) return
    const newest = this.#newest
    running.older = newest
    running.newer = undefined
    if (newest === undefined) this.#oldest = running
    else newest.newer = running
    this.#newest = running
    this.#arm(this.#ms)
  }

  remove(running: Running): void {
    const { older, newer } = running
    if (older === undefined) {
      if (this.#oldest !== running) return
      this.#oldest = newer
    } else older.newer = newer
    if (newer === undefined) this.#newest = older
    else newer.older = older
    running.older = running.newer = undefined
  }

  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #arm(ms: number): void {
    if (this.#timer !== undefined) return
    // A statement in flight holds its socket, which keeps the process up while it matters; this
    // timer alone should not.
    this.#timer = setTimeout(() => this.#expire(), ms).unref()
  }

  /** Fails the statements past the timeout, oldest first; waits for the next one due, if any. */
  #expire(): void {
    this.#timer = undefined
    const now = performance.now()
    for (let oldest = this.#oldest; oldest !== undefined; oldest = this.#oldest) {
      const left = oldest.since + this.#ms - now
      if (left > 0) return this.#arm(left)
      this.remove(oldest)
      oldest.end?.(new Error(STATEMENT_TIMEOUT_MESSAGE), undefined)
    }
  }
}
