/** A limiter's count for one key in its current window. */
export interface WindowCount {
  /** Hits counted in the window so far, this one included. */
  readonly hits: number
  /** When the window ends, in milliseconds on the store's clock. */
  readonly resetAt: number
  /** Now, on the store's clock (the database's, for the PostgreSQL store). */
  readonly now: number
}

/**
 * Where the limiters count. `hit` adds `cost` to `key`'s count in a fixed window of `windowMs` that
 * begins at the key's first hit, and answers the count with the window's end. It must be atomic
 * across every process that shares the store: a burst of concurrent hits is counted exactly
 * (`test/e2e/limits-burst.test.ts` guards it for the PostgreSQL store).
 */
export interface LimitStore {
  /** Shown in the `limit.checked` event: `memory`, `postgresql`, `redis` or your own. */
  readonly name: string
  hit(key: string, cost: number, windowMs: number): WindowCount | Promise<WindowCount>
  /** Releases what the store holds (timers, connections); called at the kernel's shutdown. */
  close?(): Promise<void>
}
