import { performance } from 'node:perf_hooks'
import type * as IoRedis from 'ioredis'
import { importOptional, messageOf } from 'fw'
import { result, type HealthCheck } from '../types.js'

/** Options of {@link redisCheck}. */
export interface RedisCheckOptions {
  /** The server, as ioredis takes it: `redis://[:password@]host:6379/0`. */
  url: string
  /** The check's name. Default `'redis'`. */
  name?: string
  /** How long connecting may take, in ms. Default 1000. */
  connectTimeoutMs?: number
  /** The registry's timeout for this check. Default: the registry's. */
  timeoutMs?: number
}

/** A URL with its password replaced by `***`, fit for a message. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@')
  }
}

/**
 * Connects to Redis once with ioredis (short connect timeout, no retries, no offline queue),
 * sends `PING`, disconnects; resolves with the round trip in ms, rejects with the error.
 */
export async function pingRedis(url: string, connectTimeoutMs = 1000): Promise<number> {
  const { Redis } = await importOptional<typeof IoRedis>('ioredis', 'a Redis health check')
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    reconnectOnError: () => false,
  })
  // ioredis emits 'error' on connection failures; the rejected connect() carries it already.
  client.on('error', () => {})
  try {
    await client.connect()
    const started = performance.now()
    await client.ping()
    return Math.round((performance.now() - started) * 100) / 100
  } finally {
    client.disconnect()
  }
}

/**
 * A Redis connectivity check: `ok` with the PING latency, `down` with the error. Not registered by
 * default: `kernel.plugin('health').register(redisCheck({ url: process.env.REDIS_URL! }))`.
 */
export function redisCheck(options: RedisCheckOptions): HealthCheck {
  const name = options.name ?? 'redis'
  const where = maskUrl(options.url)
  return {
    name,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    async run() {
      try {
        const latency = await pingRedis(options.url, options.connectTimeoutMs)
        return result('ok', name, `Redis at ${where} answered PING in ${latency} ms`, {
          latency_ms: latency,
          url: where,
        })
      } catch (error) {
        // A missing ioredis is the app's install, not the server: its message says what to do.
        const missing = (error as { code?: unknown }).code === 'FW_ERR_PACKAGE_MISSING'
        const message = missing
          ? messageOf(error)
          : `Redis at ${where} unreachable: ${messageOf(error)}`
        return result('down', name, message, {
          url: where,
        })
      }
    },
  }
}
