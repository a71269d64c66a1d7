import { importOptional } from 'fw'
import type * as IoRedis from 'ioredis'
import type { LimitStore, WindowCount } from './store.js'

/** Adds the cost and starts the window's expiry on its first hit, in one atomic script. */
const HIT = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {hits, ttl}`

/** The part of an ioredis client the store uses. */
interface RedisClient {
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>
  quit(): Promise<unknown>
}

/**
 * Counts in Redis (`limits.redis_url`), shared by every instance: one script per hit (`INCRBY`,
 * then `PEXPIRE` on a key's first hit), which Redis runs atomically. ioredis (an optional peer
 * dependency: `FW_ERR_PACKAGE_MISSING` names it when absent) loads on the first hit.
 */
export function createRedisStore(url: string, prefix = 'fw:limit:'): LimitStore {
  let client: Promise<RedisClient> | undefined
  const connect = async (): Promise<RedisClient> => {
    const { Redis } = await importOptional<typeof IoRedis>('ioredis', 'the Redis rate-limit store')
    return new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true })
  }
  return {
    name: 'redis',
    async hit(key, cost, windowMs): Promise<WindowCount> {
      client ??= connect()
      const [hits, ttl] = (await (await client).eval(HIT, 1, prefix + key, cost, windowMs)) as [
        number,
        number,
      ]
      const now = Date.now()
      return { hits, resetAt: now + ttl, now }
    },
    async close() {
      if (client !== undefined) await (await client).quit()
    },
  }
}
