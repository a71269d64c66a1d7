import {
  documentResponses,
  HttpError,
  isHttpError,
  type Middleware,
  type Reply,
  type RequestContext,
} from 'fw'
import { clearFailures, lockoutKey, releaseAttempt, reserveAttempt } from './lockout.js'
import type { AuthRuntime } from './runtime.js'

type MaybePromise<T> = T | Promise<T>

/** How an app's own sign-in route is guarded by the lockout (README.md "Lockout on your own routes"). */
export interface LockoutOptions {
  /**
   * What the failures are counted against, read from the request: the submitted email or
   * username. Undefined or empty: the request is not counted (its handler answers the missing
   * field). Compared trimmed and lower-cased, at most 100 characters, in the same table as
   * `/account/login`'s usernames: a guess through either route counts for both.
   */
  key(ctx: RequestContext): MaybePromise<string | undefined>
}

/** Every middleware `lockout()` made, so the API document can say which routes answer 429. */
const made = new WeakSet<Middleware>()

/** True for a middleware made by the auth plugin's `lockout()`. */
export function isLockout(fn: Middleware | undefined): boolean {
  return fn !== undefined && made.has(fn)
}

/** An attempt the handler refused for its credential: it stays counted. */
function refusedCredential(status: number): boolean {
  return status === 401
}

/**
 * The lockout as middleware around a sign-in handler. Each attempt takes a slot before the handler
 * runs (counted as a failure at once, so a burst of concurrent guesses cannot outrun the count);
 * then the handler's answer settles it: a success (status below 400) clears the count, a 401
 * leaves it counted, anything else (a 422 for a malformed body, a 500) gives the slot back. A
 * locked key answers 429 with `Retry-After` without running the handler, as an `HttpError` so the
 * app's error hook shapes it like its other errors.
 */
export function appLockout(rt: AuthRuntime, options: LockoutOptions): Middleware {
  const middleware: Middleware = async (ctx, next) => {
    const value = await options.key(ctx)
    const key = typeof value === 'string' ? lockoutKey(value) : ''
    if (key === '') return next()
    const slot = await reserveAttempt(rt, key)
    if (slot.kind === 'locked')
      throw new HttpError(
        429,
        {
          error: 'too_many_attempts',
          message: `Too many failed sign-ins: try again in ${slot.retryAfter} s.`,
          retry_after: slot.retryAfter,
        },
        { headers: { 'retry-after': String(slot.retryAfter) } },
      )
    // Settling the slot never replaces the handler's answer: when the database refuses the clear
    // or the release, the attempt stays counted (towards a lock, never towards an extra guess).
    const settle = (work: Promise<void>) =>
      work.catch((error: unknown) =>
        rt.kernel.logger.error('auth: the lockout count could not be settled', { error }),
      )
    let reply: Reply
    try {
      reply = await next()
    } catch (error) {
      if (!(isHttpError(error) && refusedCredential(error.status)))
        await settle(releaseAttempt(rt, slot))
      throw error
    }
    if (reply.status < 400) await settle(clearFailures(rt, key))
    else if (!refusedCredential(reply.status)) await settle(releaseAttempt(rt, slot))
    return reply
  }
  made.add(middleware)
  return documentResponses(middleware, {
    429: 'Too many failed sign-ins for this account: see `Retry-After`.',
  })
}
