import * as crypto from 'node:crypto'
import type { Kernel, Middleware, Next, Reply, RequestContext } from 'fw'
import { presentedToken } from 'fw/plugins/auth/credentials'
import { apiError, refusalData } from './envelope.js'
import type { ApiApplication } from './state.js'

/**
 * Decides whether an API key is good: the application it belongs to, or `undefined` (also
 * `null`/`false`) when the key is unknown or the application is not active. Its answers are cached
 * by the key's hash for `keyCacheMs`.
 *
 * @example
 * const checkKey: ApiKeyChecker = async (key) =>
 *   key === process.env.PARTNER_KEY ? { name: 'partner' } : undefined
 */
export type ApiKeyChecker = (
  key: string,
  kernel: Kernel,
) => Promise<ApiApplication | undefined | null | false>

/** `crypto.hash` (Node ≥ 20.12): a third of `createHash`'s cost for a short input. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string })
  .hash

/** Lowercase hex SHA-256 of an API key, as `applications.api_key_hash` stores it. */
export function hashApiKey(key: string): string {
  return oneShot === undefined
    ? crypto.createHash('sha256').update(key).digest('hex')
    : oneShot('sha256', key, 'hex')
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

/**
 * The default checker: the `applications` table (columns `id`, `name`, `api_key_hash`, `status`)
 * through the database plugin. The key is looked up by its SHA-256, the stored hash compared in
 * constant time, and only an `active` application counts.
 */
export const applicationsTable: ApiKeyChecker = async (key, kernel) => {
  const hash = hashApiKey(key)
  const rows = await kernel.plugin('database').runStatement({
    sql: 'select id, name, status, api_key_hash from applications where api_key_hash = ? limit 1',
    bindings: [hash],
  })
  const row = rows[0]
  if (row === undefined || !sameHex(String(row.api_key_hash), hash)) return undefined
  if (row.status !== 'active') return undefined
  return { id: row.id as number, name: String(row.name) }
}

/** At most this many keys are remembered (unknown keys included); the cache empties beyond. */
const MAX_CACHED = 10_000

/**
 * The checker behind a cache: hashed key → application (or "no such key") for `ttlMs`, so the hot
 * path is one SHA-256 and a map lookup, without a promise. Concurrent checks of one key share one
 * lookup; a failed lookup (database down) is not remembered.
 */
export class KeyCache {
  readonly #check: ApiKeyChecker
  readonly #kernel: Kernel
  readonly #ttlMs: number
  readonly #entries = new Map<
    string,
    { value: ApiApplication | undefined | Promise<ApiApplication | undefined>; until: number }
  >()

  constructor(check: ApiKeyChecker, kernel: Kernel, ttlMs: number) {
    this.#check = check
    this.#kernel = kernel
    this.#ttlMs = ttlMs
  }

  clear(): void {
    this.#entries.clear()
  }

  /** The application of a key: a value when cached, else a promise. */
  lookup(key: string): ApiApplication | undefined | Promise<ApiApplication | undefined> {
    if (this.#ttlMs <= 0) return this.#run(key)
    const hash = hashApiKey(key)
    const now = Date.now()
    const hit = this.#entries.get(hash)
    if (hit !== undefined && hit.until > now) return hit.value
    if (this.#entries.size >= MAX_CACHED) this.#entries.clear()
    const entry: {
      value: ApiApplication | undefined | Promise<ApiApplication | undefined>
      until: number
    } = {
      value: undefined,
      until: now + this.#ttlMs,
    }
    const pending = this.#run(key).then(
      (app) => {
        entry.value = app
        return app
      },
      (error: unknown) => {
        if (this.#entries.get(hash) === entry) this.#entries.delete(hash)
        throw error
      },
    )
    entry.value = pending
    this.#entries.set(hash, entry)
    return pending
  }

  async #run(key: string): Promise<ApiApplication | undefined> {
    return (await this.#check(key, this.#kernel)) || undefined
  }
}

/** True when the request carries an access token in any header the auth plugin reads. */
function carriesToken(ctx: RequestContext): boolean {
  const h = ctx.headers
  return h.authorization !== undefined || h.accesstoken !== undefined || h.userauth !== undefined
}

/**
 * The API-key middleware (README.md "Failures"): the key from header `apiKey` through the
 * checker; without a key, the same-origin exception (a web session whose request carried its
 * `X-CSRF-Token`); then an optional access token, which must be valid and belong to an existing
 * user. Failures answer the API error envelope. The hot path (a cached key, no token) creates no
 * promise of its own: every promise costs while the request scope's async hooks are on.
 */
export function apiKeyMiddleware(keys: KeyCache): Middleware {
  const withKey = (
    ctx: RequestContext,
    next: Next,
    application: ApiApplication | undefined,
  ): Promise<Reply> => {
    if (application === undefined) return Promise.resolve(apiError('APIKeyInvalid'))
    const state = (ctx.state.api ??= {})
    state.application = application
    state.via = 'apiKey'
    ctx.log.record('api.key.accepted', { application: application.name })
    if (carriesToken(ctx) && presentedToken(ctx) !== undefined) return withToken(ctx, next)
    return next()
  }
  return function apiKey(ctx, next) {
    const key = ctx.headers.apikey
    if (typeof key !== 'string' || key === '') return sameOrigin(ctx, next)
    const found = keys.lookup(key)
    return found instanceof Promise
      ? found.then((application) => withKey(ctx, next, application))
      : withKey(ctx, next, found)
  }
}

/** No key: a web session whose request carried its CSRF token, or 403 `APIKeyMissing`. */
async function sameOrigin(ctx: RequestContext, next: Next): Promise<Reply> {
  const identity = await ctx.identity()
  // The cookie alone is never enough: the session must have come with its CSRF token.
  if (identity?.via !== 'session' || identity.csrf !== true) return apiError('APIKeyMissing')
  ;(ctx.state.api ??= {}).via = 'session'
  // A token that came too was refused (else it, not the session, would have answered).
  if (carriesToken(ctx) && presentedToken(ctx) !== undefined)
    return tokenFailure(ctx, ctx.state.authRefused)
  return next()
}

/** A key was good and a token came along: it must identify a user. */
async function withToken(ctx: RequestContext, next: Next): Promise<Reply> {
  const identity = await ctx.identity()
  if (identity?.via !== 'accessToken' && identity?.via !== 'userAuth')
    return tokenFailure(ctx, ctx.state.authRefused)
  ;(ctx.state.api ??= {}).via = identity.via
  return next()
}

function tokenFailure(
  ctx: RequestContext,
  refused: { credential: string; reason: string } | undefined,
): Reply {
  return apiError('InvalidAccessToken', refusalData(ctx, refused))
}
