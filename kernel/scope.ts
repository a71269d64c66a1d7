import { AsyncLocalStorage } from 'node:async_hooks'
import type { RequestContext } from './context.js'
import { isThenable, type MaybePromise } from './hook-runner.js'

// The request scope: how `currentContext()` finds the request from code that does not get `ctx`
// (the database plugin's EntityManager and query log, the logging plugin's app logger).
//
// On Node 20 an AsyncLocalStorage is not free: while one is active, every async resource the
// process creates (each promise, each nextTick, each socket write) runs async-hooks bookkeeping,
// ~3 µs of CPU per request on a bare JSON route (bench/playground-http.ts). So the storage is
// active only while a request that needs it is in flight (`runInContext` counts them), and what
// runs synchronously finds its request through a plain variable instead.

const storage = new AsyncLocalStorage<RequestContext>()
/** The request whose code is running synchronously right now (set by the kernel per request). */
let running: RequestContext | undefined
/** Calls of `runInContext` not settled yet: the storage is disabled when none is. */
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

/**
 * Calls `self.method(ctx)` synchronously with `ctx` as the current request (no async
 * propagation): the request cycle's `handle`.
 */
export function runSynchronously<S, T>(
  ctx: RequestContext,
  self: S,
  method: (this: S, ctx: RequestContext) => T,
): T {
  const previous = running
  running = ctx
  try {
    return method.call(self, ctx)
  } finally {
    running = previous
  }
}

/**
 * Runs `fn` with `ctx` as the current request for everything it awaits, until what it returns
 * settles. Work it leaves running after that may no longer see the request once no other scoped
 * call is in flight.
 */
export function runInContext<T>(ctx: RequestContext, fn: () => T): T {
  inFlight++
  let result: T
  try {
    result = storage.run(ctx, fn)
  } catch (error) {
    leave()
    throw error
  }
  if (!isThenable(result)) {
    leave()
    return result
  }
  return result.then(
    (value) => {
      leave()
      return value
    },
    (error: unknown) => {
      leave()
      throw error
    },
  ) as T
}

function leave(): void {
  // Disabling turns the async-hooks bookkeeping off again (Node re-enables it on the next run).
  if (--inFlight === 0) storage.disable()
}

/**
 * Which routes' pipelines run in the request scope. A route that can wait by construction
 * (middleware, bindings, an `async` handler) always does. Any other route runs in it until it has
 * answered synchronously once, and from then on without it (its synchronous code still finds the
 * request); should it ever return a promise after all, it runs in the scope again for good.
 */
export class RouteScopes<R extends object> {
  readonly #synchronous = new WeakSet<R>()
  readonly #waited = new WeakSet<R>()

  /** Calls `self.method(ctx, arg)` for `route`, in the request scope or not (see above). */
  run<S, A, T>(
    route: R,
    mayWait: boolean,
    ctx: RequestContext,
    self: S,
    method: (this: S, ctx: RequestContext, arg: A) => MaybePromise<T>,
    arg: A,
  ): MaybePromise<T> {
    if (!mayWait && this.#synchronous.has(route)) {
      const result = method.call(self, ctx, arg)
      if (isThenable(result)) {
        this.#synchronous.delete(route)
        this.#waited.add(route)
      }
      return result
    }
    const result = runScoped(ctx, self, method, arg)
    if (!mayWait && !isThenable(result) && !this.#waited.has(route)) this.#synchronous.add(route)
    return result
  }
}

// Apart from `run`: its closure would cost `run` a scope allocation on every call.
function runScoped<S, A, T>(
  ctx: RequestContext,
  self: S,
  method: (this: S, ctx: RequestContext, arg: A) => T,
  arg: A,
): T {
  return runInContext(ctx, () => method.call(self, ctx, arg))
}
