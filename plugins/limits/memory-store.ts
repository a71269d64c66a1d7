import type { LimitStore, WindowCount } from './store.js'

interface Entry {
  hits: number
  resetAt: number
}

/** Expired windows are dropped once the map holds this many keys, so memory stays bounded by the live ones. */
const SWEEP_AT = 10_000

/**
 * Counts in this process's memory: for one process (an embedded PGlite app, tests). Each instance
 * behind a load balancer would count on its own, so the PostgreSQL or Redis store is the one for
 * several.
 */
export function createMemoryStore(now: () => number = Date.now): LimitStore {
  const windows = new Map<string, Entry>()
  let sweepAt = SWEEP_AT
  return {
    name: 'memory',
    hit(key, cost, windowMs): WindowCount {
      const at = now()
      let entry = windows.get(key)
      if (entry === undefined || entry.resetAt <= at) {
        if (windows.size >= sweepAt) sweepAt = sweep(windows, at)
        entry = { hits: 0, resetAt: at + windowMs }
        windows.set(key, entry)
      }
      entry.hits += cost
      return { hits: entry.hits, resetAt: entry.resetAt, now: at }
    },
  }
}

/** Drops expired windows; answers the size at which to sweep next (twice what is live, at least the floor). */
function sweep(windows: Map<string, Entry>, at: number): number {
  for (const [key, entry] of windows) if (entry.resetAt <= at) windows.delete(key)
  return Math.max(SWEEP_AT, windows.size * 2)
}
