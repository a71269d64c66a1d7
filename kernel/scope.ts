import { AsyncLocalStorage } from 'node:async_hooks'
import type { RequestContext } from './context.js'

// How `currentContext()` finds the request from code that does not get `ctx`: what runs
// synchronously finds it in `running`; after an `await`, in the request scope, an
// AsyncLocalStorage active only while a request that needs it is in flight (`inFlight`): on Node 20
// an active one costs every async resource ~3 µs of CPU per request (bench/playground-http.ts).

const storage = new AsyncLocalStorage<RequestContext | undefined>()
let running: RequestContext | undefined
let inFlight = 0

/**
 * The request the current call chain belongs to: always within the synchronous part of a request
 * (its taps, its handler up to the first `await`), and after an `await` when a plugin turned the
 * request scope on (`kernel.useRequestScope()`; the database plugin does). Undefined outside a
 * request.
 *
 * @example
 * const ctx = currentContext()
 * ctx?.log.record('cache.missed', { key })
 */
export function currentContext(): RequestContext | undefined {
  return running ?? storage.getStore()
}

/** Makes `ctx` the current request for what runs synchronously; returns the one it replaced. */
export function enterRequest(ctx: RequestContext | undefined): RequestContext | undefined {
  const previous = running
  running = ctx
  return previous
}

/**
 * Runs `fn(...args)` with `ctx` as the current request for everything it awaits, until what it
 * returns settles; resolves with that. Work it leaves running after that may no longer see the
 * request once no other scoped call is in flight.
 */
export async function runInContext<A extends unknown[], T>(
  ctx: RequestContext,
  fn: (...args: A) => T,
  ...args: A
): Promise<Awaited<T>> {
  inFlight++
  try {
    return await storage.run(ctx, fn, ...args)
  } finally {
    leaveScope()
  }
}

/**
 * Makes `ctx` the request of everything the current call awaits; returns the store it replaced,
 * for {@link restoreScope} before the caller returns (as `storage.run` does), so that the socket's
 * other requests do not inherit `ctx`.
 */
export function enterScope(ctx: RequestContext): RequestContext | undefined {
  inFlight++
  const outside = storage.getStore()
  storage.enterWith(ctx)
  return outside
}

/** Makes `outside` current again; `done`: the request no longer needs the scope. */
export function restoreScope(outside: RequestContext | undefined, done: boolean): void {
  storage.enterWith(outside)
  if (done) leaveScope()
}

/** The last scoped call in flight disables the storage till next used. */
function leaveScope(): void {
  if (--inFlight === 0) storage.disable()
}
