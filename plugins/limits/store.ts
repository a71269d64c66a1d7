/** A limiter's count for one key in its current window. */
export interface WindowCount {
  /** Hits counted in the window so far, this one included. */
  readonly hits: number
  /** When the window ends, in milliseconds on the store's clock. */
  readonly resetAt: number
  /** Now, on the store's clock (the database's, for the PostgreSQL store). */
  readonly now: number
}

/** What a process asks for beyond its hit when it takes a lease. */
export interface LeaseAsk {
  /** The limiter's points in a window: the store grants only from what remains of them. */
  readonly points: number
  /** How many points the process would like to spend on its own before it asks again. */
  readonly want: number
}

/** A count with the points the store leased on top of it (0: it counted the hit alone). */
export interface LeasedCount extends WindowCount {
  /** Points added to `hits` for the process to spend: `hits` already counts them. */
  readonly leased: number
}

/**
 * Where the limiters count. `hit` adds `cost` to `key`'s count in a fixed window of `windowMs` that
 * begins at the key's first hit, and answers the count with the window's end. It must be atomic
 * across every process that shares the store: a burst of concurrent hits is counted exactly
 * (`test/e2e/limits-burst.test.ts` guards it for the PostgreSQL store).
 *
 * A store that implements `take` and `giveBack` lets `coalesce()` lease points (README.md
 * "Leases"): `take` counts the hit and, in the same atomic step, adds a grant computed from what
 * remains of `ask.points`; `giveBack` subtracts points leased and not spent, only while the window
 * that ends at `resetAt` is still the key's.
 */
export interface LimitStore {
  /** Shown in the `limit.checked` event: `memory`, `postgresql`, `redis` or your own. */
  readonly name: string
  /** `points` is the limiter's: a leasing layer needs it; a plain store ignores it. */
  hit(
    key: string,
    cost: number,
    windowMs: number,
    points?: number,
  ): WindowCount | Promise<WindowCount>
  take?(key: string, cost: number, windowMs: number, ask: LeaseAsk): Promise<LeasedCount>
  giveBack?(key: string, points: number, resetAt: number): Promise<void>
  /** Releases what the store holds (timers, connections); called at the kernel's shutdown. */
  close?(): Promise<void>
}
