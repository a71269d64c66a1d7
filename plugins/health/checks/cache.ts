import { messageOf } from 'fw'
import { result, type HealthCheck } from '../types.js'
import { maskUrl, pingRedis } from './redis.js'

/** Options of {@link cacheCheck}. */
export interface CacheCheckOptions {
  /**
   * The Redis server the cache is configured to use. Unset: the cache is the in-process memory
   * store and the check is `ok`.
   */
  redisUrl?: string
  /** How long connecting to Redis may take, in ms. Default 1000. */
  connectTimeoutMs?: number
}

/**
 * `cache`: whether the cache runs on its configured store. fw's kernel has no cache store of its
 * own yet, so with no Redis configured this reports the memory store, `ok`. With `redisUrl`, it
 * tries Redis the way a cache would at startup: reachable → `ok` "redis store"; not (no server,
 * or `ioredis` missing) → `degraded`, since a cache would fall back to memory, which works but is
 * per process. The message names both stores and the likely cause.
 */
export function cacheCheck(options: CacheCheckOptions = {}): HealthCheck {
  return {
    name: 'cache',
    async run() {
      if (options.redisUrl === undefined)
        return result('ok', 'cache', 'memory store', { store: 'memory', configured: 'memory' })
      const where = maskUrl(options.redisUrl)
      try {
        const latency = await pingRedis(options.redisUrl, options.connectTimeoutMs)
        return result('ok', 'cache', `redis store at ${where}`, {
          store: 'redis',
          configured: 'redis',
          latency_ms: latency,
        })
      } catch (error) {
        const reason = messageOf(error)
        // FW_ERR_PACKAGE_MISSING's message already says what to install.
        const missing = (error as { code?: unknown }).code === 'FW_ERR_PACKAGE_MISSING'
        const hint = missing
          ? 'a cache on Redis needs it'
          : `is the Redis server running at ${where}?`
        return result(
          'degraded',
          'cache',
          `configured store redis is unavailable, fell back to memory store: ${reason}; ${hint}`,
          { store: 'memory', configured: 'redis', url: where, error: reason },
        )
      }
    },
  }
}
