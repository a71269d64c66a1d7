// Hits on one key while an earlier one is still on its way to a shared store are sent together:
// one statement (or Redis command) per key in flight per process, however many requests wait.
// Over a store that leases, a busy key takes points ahead and spends them here (README.md "Leases").
import { performance } from 'node:perf_hooks'
import type { LeasedCount, LimitStore, WindowCount } from './store.js'

/** The longest a lease is spent; what is left of it then goes back to the store. */
export const LEASE_MS = 1000
/** What a process asks for once requests on a key have waited for one in flight. */
const FIRST_WANT = 4
/** The most a process asks for in one lease. */
const MAX_WANT = 65_536

interface Waiting {
  readonly cost: number
  readonly resolve: (count: WindowCount) => void
  readonly reject: (error: unknown) => void
}

/** Points taken ahead: `hits` is the window's count when they were granted, all of them in it. */
interface Lease {
  left: number
  used: number
  readonly granted: number
  readonly hits: number
  readonly resetAt: number
  /** The store's clock when the take was answered, and ours (monotonic) when it was sent. */
  readonly storeNow: number
  readonly sentAt: number
  /** Ours: none is spent from then on, which is never after the window ends on the store. */
  readonly endsAt: number
  readonly timer: NodeJS.Timeout
}

/** A key's hits in flight (`waiting` those that came meanwhile), its lease, how much to ask for. */
interface KeyState {
  waiting: Waiting[] | undefined
  lease: Lease | undefined
  want: number
  idle: NodeJS.Timeout | undefined
  readonly windowMs: number
  readonly points: number | undefined
}

/**
 * `store` with the hits on a key coalesced: the first goes at once; those that come while it is in
 * flight wait and then go as one hit of their summed cost. Each waiting request gets the count as
 * if its own hit had been added in turn (the batch's total less the costs queued after it), so
 * the counts stay exact and the store stays the one place that decides, across every instance
 * (test/plugins/limits/coalesce.test.ts; bench/limits.ts measures what it saves).
 *
 * When the store can `take` and the limiter passes its points, a key whose requests waited asks
 * for a lease with its next hit: points counted in the store now and spent here without a round
 * trip, for at most {@link LEASE_MS} and never past the window's end; what is left then, or at
 * `close()`, is given back. The store decides the grant under its lock (a share of what remains,
 * none near the limit), so the points spent across every instance never exceed the limiter's
 * (test/plugins/limits/leases.test.ts).
 */
export function coalesce(store: LimitStore): LimitStore {
  return new CoalescedStore(store)
}

class CoalescedStore implements LimitStore {
  readonly #store: LimitStore
  readonly #states = new Map<string, KeyState>()
  readonly #givingBack = new Set<Promise<void>>()

  constructor(store: LimitStore) {
    this.#store = store
  }

  get name(): string {
    return this.#store.name
  }

  hit(
    key: string,
    cost: number,
    windowMs: number,
    points?: number,
  ): WindowCount | Promise<WindowCount> {
    let state = this.#states.get(key)
    if (state === undefined) {
      state = { waiting: undefined, lease: undefined, want: 0, idle: undefined, windowMs, points }
      this.#states.set(key, state)
    }
    const spent = this.#spend(key, state, cost)
    if (spent !== undefined) return spent
    const own = state
    return new Promise<WindowCount>((resolve, reject) => {
      if (own.waiting !== undefined) {
        own.waiting.push({ cost, resolve, reject })
        return
      }
      own.waiting = []
      this.#send(key, own, [{ cost, resolve, reject }])
    })
  }

  async close(): Promise<void> {
    for (const [key, state] of this.#states) {
      if (state.lease !== undefined) this.#endLease(key, state)
      clearTimeout(state.idle)
    }
    await Promise.all(this.#givingBack)
    await this.#store.close?.()
  }

  #forgetIfIdle(key: string, state: KeyState): void {
    if (state.waiting === undefined && state.lease === undefined && state.idle === undefined)
      this.#states.delete(key)
  }

  /** Ends the lease; its unspent points go back (a give-back that fails leaves them counted). */
  #endLease(key: string, state: KeyState): void {
    const lease = state.lease!
    state.lease = undefined
    clearTimeout(lease.timer)
    if (lease.left === 0 || this.#store.giveBack === undefined) return
    const done = (): void => void this.#givingBack.delete(back)
    const back: Promise<void> = this.#store
      .giveBack(key, lease.left, lease.resetAt)
      .then(done, done)
    this.#givingBack.add(back)
  }

  /** The count of a hit spent from the lease, or undefined (the lease, if any, is then ended). */
  #spend(key: string, state: KeyState, cost: number): WindowCount | undefined {
    const lease = state.lease
    if (lease === undefined) return undefined
    const at = performance.now()
    if (at < lease.endsAt && lease.left >= cost) {
      lease.left -= cost
      lease.used += cost
      return {
        hits: lease.hits - lease.left,
        resetAt: lease.resetAt,
        now: lease.storeNow + at - lease.sentAt,
      }
    }
    // Spent before its end: the key needs more; ended: ask for what it used.
    state.want = at < lease.endsAt ? Math.min(MAX_WANT, lease.granted * 2) : lease.used
    this.#endLease(key, state)
    return undefined
  }

  #install(key: string, state: KeyState, count: LeasedCount, sentAt: number): void {
    const span = Math.min(LEASE_MS, count.resetAt - count.now)
    const lease: Lease = {
      left: count.leased,
      used: 0,
      granted: count.leased,
      hits: count.hits,
      resetAt: count.resetAt,
      storeNow: count.now,
      sentAt,
      endsAt: sentAt + span,
      timer: setTimeout(() => this.#expire(key, state, lease), span).unref(),
    }
    clearTimeout(state.idle)
    state.idle = undefined
    state.lease = lease
  }

  /** A lease's time is up: what it used is what the key asks for next. */
  #expire(key: string, state: KeyState, lease: Lease): void {
    if (state.lease !== lease) return
    state.want = lease.used
    this.#endLease(key, state)
    // The demand is remembered one lease longer, so a steady key does not start over.
    clearTimeout(state.idle)
    state.idle = setTimeout(() => {
      state.idle = undefined
      this.#forgetIfIdle(key, state)
    }, LEASE_MS).unref()
  }

  #send(key: string, state: KeyState, batch: Waiting[]): void {
    let total = 0
    for (const w of batch) total += w.cost
    const store = this.#store
    const want =
      store.take === undefined || state.points === undefined
        ? 0
        : batch.length > 1
          ? Math.max(state.want, FIRST_WANT)
          : state.want
    const sentAt = performance.now()
    const counted: Promise<WindowCount | LeasedCount> =
      want > 0
        ? store.take!(key, total, state.windowMs, { points: state.points!, want })
        : Promise.resolve(store.hit(key, total, state.windowMs))
    counted.then(
      (count) => {
        const leased = 'leased' in count ? count.leased : 0
        let after = total + leased
        for (const w of batch) {
          after -= w.cost
          w.resolve({ hits: count.hits - after, resetAt: count.resetAt, now: count.now })
        }
        if (leased > 0) this.#install(key, state, count as LeasedCount, sentAt)
        this.#next(key, state)
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error)
        this.#next(key, state)
      },
    )
  }

  /** Serves what waited from a new lease, sends the rest, or forgets the key. */
  #next(key: string, state: KeyState): void {
    const rest: Waiting[] = []
    for (const w of state.waiting!) {
      const count = this.#spend(key, state, w.cost)
      if (count === undefined) rest.push(w)
      else w.resolve(count)
    }
    state.waiting = rest.length === 0 ? undefined : []
    if (rest.length > 0) this.#send(key, state, rest)
    else this.#forgetIfIdle(key, state)
  }
}
