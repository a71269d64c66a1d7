import { empty, type Kernel, type Reply } from 'fw'

/** The CORS defaults (README.md "CORS"). */
export const CORS_DEFAULTS = {
  methods: 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  headers: 'Content-Type, Authorization, X-Requested-With, X-CSRF-Token, apiKey, accessToken',
  maxAge: 86400,
} as const

/** The CORS policy in force for a request. */
export interface CorsPolicy {
  /** `*`, or the allowed origins, normalised (lower case, no trailing slash). */
  readonly origins: '*' | ReadonlySet<string>
  readonly methods: string
  readonly headers: string
  /** Where the policy came from: config, the applications row, or the `*` fallback. */
  readonly source: 'config' | 'database' | 'fallback'
}

/** The applications row's CORS settings, lists comma-separated (README.md "CORS"). */
export interface CorsSettingsRecord {
  cors_enabled: boolean
  origin: string | null
  allowed_methods: string | null
  allowed_headers: string | null
}

/** `https://App.test/` → `https://app.test`. */
export function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase()
}

function list(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/** A policy from a list of origins (`*` anywhere in it allows every origin). */
export function policyOf(
  origins: readonly string[],
  source: CorsPolicy['source'],
  methods: string = CORS_DEFAULTS.methods,
  headers: string = CORS_DEFAULTS.headers,
): CorsPolicy {
  const cleaned = origins.map(normaliseOrigin).filter((o) => o !== '')
  return {
    origins: cleaned.includes('*') ? '*' : new Set(cleaned),
    methods,
    headers,
    source,
  }
}

const FALLBACK = policyOf(['*'], 'fallback')

/** The policy an applications row gives: `*` when there is no row or CORS is off for it. */
export function policyFromRecord(row: CorsSettingsRecord | undefined): CorsPolicy {
  if (row === undefined || !row.cors_enabled) return FALLBACK
  const methods = list(row.allowed_methods)
  const headers = list(row.allowed_headers)
  return policyOf(
    list(row.origin),
    'database',
    methods.length > 0 ? methods.join(', ') : CORS_DEFAULTS.methods,
    headers.length > 0 ? headers.join(', ') : CORS_DEFAULTS.headers,
  )
}

/**
 * Where the CORS policy comes from: `api.cors_origins`, or, with `api.cors_from_db`, the
 * applications row named `app.name` (read through a cache of `cacheMs`), falling back to `*` when
 * the database is unavailable, the `authorization-server` feature is off, there is no row, or
 * `cors_enabled` is false.
 */
export class CorsSource {
  readonly #kernel: Kernel
  readonly #cacheMs: number
  #configPolicy: CorsPolicy | undefined
  #cached: { policy: CorsPolicy | Promise<CorsPolicy>; readonly until: number } | undefined

  constructor(kernel: Kernel, cacheMs: number) {
    this.#kernel = kernel
    this.#cacheMs = cacheMs
  }

  /** Forgets the cached database policy (tests, or after editing the row). */
  clear(): void {
    this.#cached = undefined
  }

  /** The policy in force now: a value from config, a promise when it is read from the database. */
  policy(): CorsPolicy | Promise<CorsPolicy> {
    const config = this.#kernel.config
    if (!config.api.cors_from_db) {
      return (this.#configPolicy ??= policyOf(config.api.cors_origins, 'config'))
    }
    if (!this.#kernel.hasFeature('authorization-server') || !this.#kernel.hasPlugin('database'))
      return FALLBACK
    const now = Date.now()
    const cached = this.#cached
    if (cached !== undefined && cached.until > now) return cached.policy
    const entry: { policy: CorsPolicy | Promise<CorsPolicy>; readonly until: number } = {
      policy: FALLBACK,
      until: now + this.#cacheMs,
    }
    // Once read, the cached policy is a value: the hot path creates no promise.
    entry.policy = this.#read().then((policy) => (entry.policy = policy))
    this.#cached = entry
    return entry.policy
  }

  async #read(): Promise<CorsPolicy> {
    try {
      const rows = await this.#kernel.plugin('database').runStatement({
        sql: 'select cors_enabled, origin, allowed_methods, allowed_headers from applications where name = ? limit 1',
        bindings: [this.#kernel.config.app.name],
      })
      return policyFromRecord(rows[0] as CorsSettingsRecord | undefined)
    } catch (error) {
      this.#kernel.logger.warn('api: CORS settings unreadable, allowing every origin', {
        error,
      })
      return FALLBACK
    }
  }
}

/**
 * Adds the CORS headers of `policy` for a request from `origin`: `*`, or the origin echoed with
 * `Vary: Origin` when it is listed; an unlisted origin gets no `Access-Control-Allow-Origin`.
 */
export function applyCors(reply: Reply, policy: CorsPolicy, origin: string | undefined): Reply {
  if (policy.origins === '*') {
    reply.headers['access-control-allow-origin'] = '*'
    return reply
  }
  reply.appendHeader('vary', 'Origin')
  if (origin !== undefined && policy.origins.has(normaliseOrigin(origin)))
    reply.headers['access-control-allow-origin'] = origin
  return reply
}

/** The answer to a preflight `OPTIONS`: 204 with the policy's headers. */
export function preflight(policy: CorsPolicy, origin: string | undefined): Reply {
  return applyCors(empty(204), policy, origin)
    .header('access-control-allow-methods', policy.methods)
    .header('access-control-allow-headers', policy.headers)
    .header('access-control-max-age', String(CORS_DEFAULTS.maxAge))
}
