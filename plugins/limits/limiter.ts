import { createHash } from 'node:crypto'
import { documentResponses, HttpError, type Middleware, type RequestContext } from 'fw'
import { limitsErrors } from './errors.js'
import type { LimitStore } from './store.js'
import './events.js'

/** A named limiter: how many requests a key may make in a window (README.md "Limiters"). */
export interface LimiterOptions {
  /** How many points a key may spend in one window (a request costs `cost`). */
  points: number
  /** The window's length, in seconds. */
  duration: number
  /**
   * What is counted against, read from the request; default the client's address (`ctx.ip`,
   * which honours `http.trust_proxy`). Undefined or empty: the request is not counted.
   */
  key?: (ctx: RequestContext) => string | undefined | Promise<string | undefined>
  /** What one request costs; default 1. */
  cost?: number
}

/** Limiter names go into headers as quoted strings and into store keys: keep them plain. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/

/** Throws `FW_ERR_LIMITS_INVALID` naming the limiter and the problem. */
export function checkLimiter(name: string, options: LimiterOptions): void {
  const problem = !NAME.test(name)
    ? 'its name must be 1–40 letters, digits, `_`, `.` or `-`'
    : !Number.isInteger(options.points) || options.points < 1
      ? '`points` must be a whole number ≥ 1'
      : !Number.isInteger(options.duration) || options.duration < 1
        ? '`duration` must be a whole number of seconds ≥ 1'
        : options.cost !== undefined && (!Number.isInteger(options.cost) || options.cost < 1)
          ? '`cost` must be a whole number ≥ 1'
          : undefined
  if (problem !== undefined)
    throw limitsErrors.error('FW_ERR_LIMITS_INVALID', { name: JSON.stringify(name), problem })
}

/**
 * The store's key for a limiter and a counted value: the value hashed, so a store never holds a
 * client's address or a username, and every key has the same length whatever was sent.
 */
function storeKey(name: string, value: string): string {
  return `${name}:${createHash('sha256').update(value).digest('base64url').slice(0, 32)}`
}

/** Store keys remembered per limiter, at most (then forgotten at once): a busy key hashes once. */
const KEYS_KEPT = 1000

/** `storeKey` for one limiter, remembering the last values' keys. */
function storeKeys(name: string): (value: string) => string {
  const kept = new Map<string, string>()
  return (value) => {
    let found = kept.get(value)
    if (found === undefined) {
      if (kept.size >= KEYS_KEPT) kept.clear()
      kept.set(value, (found = storeKey(name, value)))
    }
    return found
  }
}

/**
 * The limiter as middleware: counts the request against its key, answers 429 with `Retry-After`
 * once the window's points are spent, and otherwise lets it through; both carry the IETF
 * `RateLimit-Policy` and `RateLimit` fields. A store that fails fails the request (the database
 * plugin answers 503 for an unreachable database): no request passes uncounted.
 */
export function createLimiter(
  name: string,
  options: LimiterOptions,
  store: LimitStore,
): Middleware {
  checkLimiter(name, options)
  const { points, duration, key = (ctx) => ctx.ip, cost = 1 } = options
  const windowMs = duration * 1000
  const policy = `"${name}";q=${points};w=${duration}`
  const keyOf = storeKeys(name)
  const limiter: Middleware = async (ctx, next) => {
    const read = key(ctx)
    const value = read instanceof Promise ? await read : read
    if (value === undefined || value === '') return next()
    const started = ctx.log.now()
    const counted = store.hit(keyOf(value), cost, windowMs, points)
    // A count the store answers at once (a lease, the memory store) is not awaited.
    const count = counted instanceof Promise ? await counted : counted
    const remaining = Math.max(0, points - count.hits)
    const reset = Math.max(1, Math.ceil((count.resetAt - count.now) / 1000))
    const allowed = count.hits <= points
    ctx.log.record('limit.checked', {
      limiter: name,
      allowed,
      remaining,
      reset,
      store: store.name,
      duration: ctx.log.now() - started,
    })
    const state = `"${name}";r=${remaining};t=${reset}`
    if (!allowed)
      throw new HttpError(
        429,
        {
          error: 'too_many_requests',
          message: `Too many requests: try again in ${reset} s.`,
          retry_after: reset,
        },
        { headers: { 'retry-after': String(reset), 'ratelimit-policy': policy, ratelimit: state } },
      )
    const reply = await next()
    return reply.appendHeader('ratelimit-policy', policy).appendHeader('ratelimit', state)
  }
  Object.defineProperty(limiter, 'name', { value: `limit:${name}` })
  return documentResponses(limiter, {
    429: `Too many requests (limiter \`${name}\`: ${points} per ${duration} s): see \`Retry-After\`.`,
  })
}
