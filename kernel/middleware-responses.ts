import type { Middleware } from './types.js'

/** Statuses a middleware may answer instead of the route, each with what it means. */
export type MiddlewareResponses = Readonly<Record<number, string>>

const documented = new WeakMap<Middleware, MiddlewareResponses>()

/**
 * Says which statuses a middleware may answer on any route that uses it (a rate limit's 429, a
 * lockout's 429), so that reports derived from routes, such as the API document, list them. Answers
 * the middleware itself. `test/plugins/openapi/middleware-responses.test.ts` guards the document.
 *
 * @example
 * kernel.middleware('quota', documentResponses(quota, { 429: 'The quota is spent: see Retry-After.' }))
 */
export function documentResponses<M extends Middleware>(fn: M, responses: MiddlewareResponses): M {
  documented.set(fn, { ...documented.get(fn), ...responses })
  return fn
}

/** The statuses {@link documentResponses} recorded for a middleware; empty when none. */
export function responsesOf(fn: Middleware | undefined): MiddlewareResponses {
  return (fn === undefined ? undefined : documented.get(fn)) ?? {}
}
