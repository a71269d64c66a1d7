import { AsyncLocalStorage } from 'node:async_hooks'
import type { RequestContext } from './context.js'

const storage = new AsyncLocalStorage<RequestContext>()

/**
 * The request the current async call chain belongs to, when a plugin turned the request scope on
 * (`kernel.useRequestScope()`; the database plugin does, to attribute queries to requests).
 * Undefined outside a request, and always when no plugin asked for the scope.
 *
 * @example
 * const ctx = currentContext()
 * ctx?.log.record('cache.missed', { key })
 */
export function currentContext(): RequestContext | undefined {
  return storage.getStore()
}

/** Runs `fn` with `ctx` as the current request for everything it awaits. */
export function runInContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn)
}
