// Hits on one key while an earlier one is still on its way to a shared store are sent together:
// one statement (or Redis command) per key in flight per process, however many requests wait.
import type { LimitStore, WindowCount } from './store.js'

interface Waiting {
  readonly cost: number
  readonly resolve: (count: WindowCount) => void
  readonly reject: (error: unknown) => void
}

/** A key's hits: whether one is in flight, and those waiting for it to come back. */
interface KeyQueue {
  waiting: Waiting[]
}

/**
 * `store` with the hits on a key coalesced: the first goes at once; those that come while it is in
 * flight wait and then go as one hit of their summed cost. Each waiting request gets the count as
 * if its own hit had been added in turn (the batch's total less the costs queued after it), so
 * the counts stay exact and the store stays the one place that decides, across every instance
 * (test/plugins/limits/coalesce.test.ts; bench/limits.ts measures what it saves).
 */
export function coalesce(store: LimitStore): LimitStore {
  const queues = new Map<string, KeyQueue>()

  const send = (key: string, batch: Waiting[], windowMs: number): void => {
    let total = 0
    for (const w of batch) total += w.cost
    Promise.resolve(store.hit(key, total, windowMs)).then(
      (count) => {
        let after = total
        for (const w of batch) {
          after -= w.cost
          w.resolve({ hits: count.hits - after, resetAt: count.resetAt, now: count.now })
        }
        next(key, windowMs)
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error)
        next(key, windowMs)
      },
    )
  }

  /** Sends what waited for the hit that just came back, or forgets the key. */
  const next = (key: string, windowMs: number): void => {
    const queue = queues.get(key)!
    if (queue.waiting.length === 0) {
      queues.delete(key)
      return
    }
    const batch = queue.waiting
    queue.waiting = []
    send(key, batch, windowMs)
  }

  return {
    name: store.name,
    hit(key, cost, windowMs) {
      return new Promise<WindowCount>((resolve, reject) => {
        const queue = queues.get(key)
        if (queue !== undefined) {
          queue.waiting.push({ cost, resolve, reject })
          return
        }
        queues.set(key, { waiting: [] })
        send(key, [{ cost, resolve, reject }], windowMs)
      })
    },
    ...(store.close === undefined ? {} : { close: () => store.close!() }),
  }
}
