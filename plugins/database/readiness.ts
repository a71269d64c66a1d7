import { performance } from 'node:perf_hooks'
import type { ReadinessCheck } from 'fw'
import type { Availability } from './availability.js'

/** How often a readiness probe may reach the database (a load balancer asks every ~200 ms). */
const PING_EVERY_MS = 1000
/** Longer than this, a ping counts as failed: a probe never waits on a hung connection. */
const PING_TIMEOUT_MS = 1000

/**
 * The database plugin's readiness condition: fails while the app waits for a database it could
 * not reach at start, and when the last round trip (at most one a second, in the background,
 * the probe answering from the last one) failed or took over a second. The first probe waits for
 * its round trip.
 */
export function databaseReadiness(
  availability: () => Availability,
  ping: () => Promise<void>,
): ReadinessCheck {
  let last: { at: number; ok: boolean } | undefined
  let inflight: Promise<void> | undefined
  const refresh = (): Promise<void> => {
    inflight ??= (async () => {
      let timer: NodeJS.Timeout | undefined
      const ok = await Promise.race([
        ping().then(
          () => true,
          () => false,
        ),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)
          timer.unref()
        }),
      ])
      clearTimeout(timer)
      last = { at: performance.now(), ok }
      inflight = undefined
    })()
    return inflight
  }
  return async () => {
    const state = availability().state
    if (state === 'waiting') return 'database unreachable (waiting since start)'
    if (state === 'closed') return 'database closed'
    if (last === undefined) await refresh()
    else if (performance.now() - last.at >= PING_EVERY_MS) refresh().catch(() => undefined)
    return last?.ok === false ? 'database unreachable' : undefined
  }
}
