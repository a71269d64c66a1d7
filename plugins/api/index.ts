// The API middleware (README.md): named middleware `cors`, `contentType`, `apiKey`, `unified`, the
// composed pipeline, CORS preflight for API paths, JSON/XML negotiation, and `fw app:create`.
import {
  definePlugin,
  documentResponses,
  type Kernel,
  type Middleware,
  type Next,
  type Reply,
  type RequestContext,
} from 'fw'
import { apiKeyMiddleware, applicationsTable, KeyCache, type ApiKeyChecker } from './api-key.js'
import { AppCreateCommand } from './app-create-command.js'
import { apiKeyProjection } from './debug-projection.js'
import { apiErrors } from './errors.js'
import { contentType, renderFormat } from './content-type.js'
import { applyCors, CorsSource, normaliseOrigin, preflight, type CorsPolicy } from './cors.js'
import { checkPrefix, tapPrefixMeta } from './prefix-meta.js'
import './state.js'
import { unified } from './unified.js'

/** Options of the API plugin. */
export interface ApiOptions {
  /** Decides whether an API key is good. Default: the `applications` table (sha256, active). */
  checkKey?: ApiKeyChecker
  /** How long a key's answer is trusted, ms (default 5000; 0: ask the checker every request). */
  keyCacheMs?: number
  /** How long the CORS settings read from the database are trusted, ms (default 5000). */
  corsCacheMs?: number
  /** Path prefixes whose `OPTIONS` requests are answered as CORS preflight (default `['/api/']`). */
  prefixes?: readonly string[]
}

/** What the `apiKey` middleware (and the pipeline holding it) may answer instead of the route. */
const API_KEY_RESPONSES = {
  403: 'No API key (and no web session with its CSRF token), or an access token that is not valid.',
}

/** The names of the API pipeline, in order: what a route group lists to run it. */
export const API_PIPELINE = ['cors', 'contentType', 'apiKey'] as const

/** What `kernel.plugin('api')` returns. */
export interface ApiApi {
  /** CORS, then content type, then API key, as one middleware (for a group named `api`). */
  readonly pipeline: Middleware
  readonly cors: Middleware
  readonly contentType: Middleware
  readonly apiKey: Middleware
  readonly unified: Middleware
  /** The CORS policy in force now. */
  corsPolicy(): Promise<CorsPolicy>
  /**
   * Whether the CORS policy in force lets `origin` read replies: `undefined` while the policy is
   * still being read from the database (`api.cors_from_db`). The debug plugin asks it for app
   * routes in development.
   */
  allowsOrigin(origin: string): boolean | undefined
  /** Forgets the cached key answers and CORS settings (after changing `applications`). */
  clearCache(): void
}

declare module 'fw' {
  interface PluginApis {
    api: ApiApi
  }
  interface FwConfig {
    api: {
      /** Origins allowed by CORS on API routes (`*`: any). */
      cors_origins: string[]
      /** Read the CORS settings from the `applications` row named like the app instead. */
      cors_from_db: boolean
      /** The path the generated client sends to (`/api/v1`), put into every HTML page; '' for none. */
      prefix: string
    }
  }
}

function compose3(names: readonly Middleware[]): Middleware {
  const [a, b, c] = names as [Middleware, Middleware, Middleware]
  return (ctx, next) => a(ctx, () => b(ctx, () => c(ctx, next)))
}

/**
 * The API middleware as a plugin. Registers the named middleware `cors`, `contentType`, `apiKey`
 * and `unified`; answers `OPTIONS` under `prefixes` with 204 and the CORS headers before routing
 * (so before authentication); a `render` tap (stage 0) applies the CORS headers and the negotiated
 * format to every reply of a request the middleware saw, errors included.
 *
 * @example
 * kernel.register(api, { checkKey: async (key) => (key === 'k' ? { name: 'partner' } : undefined) })
 * kernel.router.group({ prefix: 'api/v1', middleware: [...API_PIPELINE] }, (r) => r.get('x', x))
 */
export default definePlugin<ApiOptions | undefined, ApiApi>({
  name: 'api',
  // auth: a request that carries a token is left to it; database: the default key checker (the
  // `applications` table), CORS settings from the database, `fw app:create`; debug: the
  // application in the `_debug` payload, and which origins may read app routes in development.
  optionalDependsOn: ['auth', 'database', 'debug'],
  config: {
    defaults: { api: { cors_origins: ['*'], cors_from_db: false, prefix: '' } },
    schema: {
      'api.cors_origins': 'string[]',
      'api.cors_from_db': 'boolean',
      'api.prefix': { kind: 'string', check: checkPrefix },
    },
  },
  setup(kernel: Kernel, options) {
    if (options?.checkKey === undefined && !kernel.hasPlugin('database')) {
      throw apiErrors.error('FW_ERR_API_NO_KEY_CHECK')
    }
    const keys = new KeyCache(
      options?.checkKey ?? applicationsTable,
      kernel,
      options?.keyCacheMs ?? 5000,
    )
    const source = new CorsSource(kernel, options?.corsCacheMs ?? 5000)
    const prefixes = options?.prefixes ?? ['/api/']

    // Plain functions, not `async` ones: with a policy from config (or cached), no promise of
    // their own (each costs while the request scope's async hooks are on).
    const mark = (ctx: RequestContext, next: Next, policy: CorsPolicy): Promise<Reply> => {
      ;(ctx.state.api ??= {}).cors = { policy, origin: ctx.header('origin') }
      return next()
    }
    const cors: Middleware = function cors(ctx, next) {
      const policy = source.policy()
      return policy instanceof Promise
        ? policy.then((p) => mark(ctx, next, p))
        : mark(ctx, next, policy)
    }
    const apiKey = documentResponses(apiKeyMiddleware(keys), API_KEY_RESPONSES)
    kernel.middleware('cors', cors)
    kernel.middleware('contentType', contentType)
    kernel.middleware('apiKey', apiKey)
    kernel.middleware('unified', unified)

    // Synchronous taps: they run for every request of the app, and a sync tap costs no promise.
    kernel.hooks.request.tap('api.preflight', (ctx) => {
      if (ctx.method !== 'OPTIONS' || !prefixes.some((p) => ctx.path.startsWith(p)))
        return undefined
      const origin = ctx.header('origin')
      const policy = source.policy()
      return policy instanceof Promise
        ? policy.then((p) => preflight(p, origin))
        : preflight(policy, origin)
    })
    kernel.hooks.render.tap('api', (reply: Reply, ctx) => {
      const state = ctx.state.api
      if (state === undefined) return reply
      if (state.cors !== undefined) applyCors(reply, state.cors.policy, state.cors.origin)
      return state.format === undefined ? reply : renderFormat(reply, state.format)
    })
    const prefix = kernel.config.api.prefix
    if (prefix !== '') tapPrefixMeta(kernel, prefix)
    if (kernel.hasPlugin('database')) kernel.command(AppCreateCommand)

    const allowsOrigin = (origin: string): boolean | undefined => {
      const policy = source.policy()
      if (policy instanceof Promise) return undefined
      return policy.origins === '*' || policy.origins.has(normaliseOrigin(origin))
    }
    if (kernel.hasPlugin('debug')) {
      const debug = kernel.plugin('debug')
      debug.project('auth', apiKeyProjection)
      debug.allowOrigins((origin) => allowsOrigin(origin) === true)
      if (prefix !== '') debug.describeApi({ prefix: prefix.replace(/\/+$/, '') })
    }

    return {
      pipeline: documentResponses(compose3([cors, contentType, apiKey]), API_KEY_RESPONSES),
      cors,
      contentType,
      apiKey,
      unified,
      corsPolicy: async () => source.policy(),
      allowsOrigin,
      clearCache() {
        keys.clear()
        source.clear()
      },
    }
  },
})

export { apiError } from './envelope.js'
export { minUsertype } from './usertype.js'
export type { ApiErrorCode, ApiErrorEnvelope } from './envelope.js'
export { applicationsTable, hashApiKey, KeyCache } from './api-key.js'
export type { ApiKeyChecker } from './api-key.js'
export { negotiate, toXml, JSON_TYPE, XML_TYPE } from './content-type.js'
export { CORS_DEFAULTS, policyOf, policyFromRecord, normaliseOrigin } from './cors.js'
export type { CorsPolicy, CorsSettingsRecord } from './cors.js'
export type { ApiApplication, ApiRequestState } from './state.js'
export { AppCreateCommand } from './app-create-command.js'
export { apiErrors } from './errors.js'
