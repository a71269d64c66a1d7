// Named rate limits as middleware, counted in memory, in the app's PostgreSQL database or in Redis
// (README.md).
import { definePlugin, type Kernel, type Middleware } from 'fw'
import { coalesce } from './coalesce.js'
import { createDatabaseStore, limitsMigrations } from './database-store.js'
import { limitsErrors } from './errors.js'
import { createLimiter, type LimiterOptions } from './limiter.js'
import { createMemoryStore } from './memory-store.js'
import { createRedisStore } from './redis-store.js'
import type { LimitStore } from './store.js'

/** Options of the limits plugin. */
export interface LimitsOptions {
  /** Limiters to define at setup, as {@link LimitsApi.define} does. */
  limiters?: Readonly<Record<string, LimiterOptions>>
  /** A store of your own, instead of the one config `limits.store` picks. */
  store?: LimitStore
}

/** What `kernel.plugin('limits')` returns. */
export interface LimitsApi {
  /**
   * Defines a limiter and registers it as the middleware `limit:<name>`, for routes and groups;
   * answers the middleware. Fails with `FW_ERR_LIMITS_INVALID` for an unusable name or figure.
   *
   * @example
   * kernel.plugin('limits').define('api', { points: 60, duration: 60 })
   * kernel.router.group({ prefix: 'api', middleware: ['limit:api'] }, (r) => { … })
   */
  define(name: string, options: LimiterOptions): Middleware
  /** The middleware of a defined limiter; `FW_ERR_LIMITS_UNKNOWN` when there is none. */
  limiter(name: string): Middleware
  /** Where the limiters count. */
  readonly store: LimitStore
}

/** Which store counts: `auto` picks Redis when a URL is set, else PostgreSQL, else memory. */
export type LimitStoreName = 'auto' | 'memory' | 'database' | 'redis'

declare module 'fw' {
  interface PluginApis {
    limits: LimitsApi
  }
  interface FwConfig {
    limits: {
      /** Where counts are kept (README.md "Stores"); `auto` by default. */
      store: LimitStoreName
      /** `redis://…` for the Redis store. */
      redis_url: string | undefined
    }
  }
}

const STORES: readonly LimitStoreName[] = ['auto', 'memory', 'database', 'redis']

/** The store config `limits.store` names, with the database's migration when it is that one. */
function pickStore(kernel: Kernel): LimitStore {
  const { store, redis_url: redisUrl } = kernel.config.limits
  const db = kernel.hasPlugin('database') ? kernel.plugin('database') : undefined
  const refuse = (problem: string): never => {
    throw limitsErrors.error('FW_ERR_LIMITS_STORE', { problem })
  }
  if (store === 'redis' || (store === 'auto' && redisUrl !== undefined))
    return coalesce(
      createRedisStore(
        redisUrl ?? refuse('`limits.store` is redis but `limits.redis_url` is not set'),
      ),
    )
  const shared = store === 'database' || (store === 'auto' && db?.target.kind === 'postgresql')
  if (!shared) return createMemoryStore()
  if (db === undefined)
    return refuse('`limits.store` is database but the database plugin is not registered')
  db.addMigrations(limitsMigrations)
  return coalesce(createDatabaseStore(db))
}

/**
 * Rate limits: named limiters as route or group middleware (`limit:<name>`), counted per key in a
 * fixed window, shared by every instance through PostgreSQL or Redis; 429 with `Retry-After` and
 * the IETF `RateLimit-Policy`/`RateLimit` fields; each decision a `limit.checked` event.
 *
 * @example
 * kernel.register(limits, { limiters: { api: { points: 60, duration: 60 } } })
 * kernel.router.get('api/things', listThings).middleware('limit:api')
 */
export default definePlugin<LimitsOptions | undefined, LimitsApi>({
  name: 'limits',
  // database: the shared store and its table.
  optionalDependsOn: ['database'],
  config: {
    defaults: { limits: { store: 'auto', redis_url: undefined } },
    schema: {
      'limits.store': {
        kind: 'string',
        check: (v) =>
          STORES.includes(v as LimitStoreName) ? undefined : `use one of ${STORES.join(', ')}`,
      },
      'limits.redis_url': 'string?',
    },
  },
  setup(kernel, options = {}) {
    const store = options.store ?? pickStore(kernel)
    const limiters = new Map<string, Middleware>()
    const api: LimitsApi = {
      store,
      define(name, limiterOptions) {
        const middleware = createLimiter(name, limiterOptions, store)
        limiters.set(name, middleware)
        kernel.middleware(`limit:${name}`, middleware)
        return middleware
      },
      limiter(name) {
        const found = limiters.get(name)
        if (found === undefined)
          throw limitsErrors.error('FW_ERR_LIMITS_UNKNOWN', {
            name: JSON.stringify(name),
            known: [...limiters.keys()].join(', ') || 'none',
          })
        return found
      },
    }
    for (const [name, limiterOptions] of Object.entries(options.limiters ?? {}))
      api.define(name, limiterOptions)
    kernel.hooks.shutdown.tapPromise('limits', async () => store.close?.())
    return api
  },
})

export { coalesce } from './coalesce.js'
export { createMemoryStore } from './memory-store.js'
export { createDatabaseStore } from './database-store.js'
export { createRedisStore } from './redis-store.js'
export { limitsErrors } from './errors.js'
export type { LeaseAsk, LeasedCount, LimitStore, WindowCount } from './store.js'
export type { LimiterOptions } from './limiter.js'
