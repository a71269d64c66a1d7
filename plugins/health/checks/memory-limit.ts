import { readFile } from 'node:fs/promises'
import { getHeapStatistics } from 'node:v8'
import { formatBytes } from './disk-space.js'
import { result, type HealthCheck } from '../types.js'

/** What the memory check compares: a use against a limit, and which pair it is. */
export interface MemorySample {
  /** `heap`: peak heap use against V8's heap limit; `rss`: peak RSS against the cgroup limit. */
  kind: 'heap' | 'rss'
  used: number
  limit: number
}

/** Options of {@link memoryLimitCheck}. */
export interface MemoryLimitOptions {
  /** `degraded` at this share of the limit. Default 0.75. */
  degradedAt?: number
  /** `down` at this share of the limit. Default 0.9. */
  downAt?: number
  /** Where the figures come from (tests replace it). Default {@link sampleMemory}. */
  sample?: () => Promise<MemorySample>
}

/** Values at or above this are "no limit" in cgroup files (v1 writes ~2^63 when unset). */
const NO_LIMIT = 2 ** 60

/** The cgroup memory limit in bytes (v2 `memory.max`, else v1), or undefined when none is set. */
export async function cgroupLimit(): Promise<number | undefined> {
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const text = (await readFile(file, 'utf8')).trim()
      if (text === 'max') return undefined
      const n = Number(text)
      if (Number.isFinite(n) && n > 0) return n >= NO_LIMIT ? undefined : n
    } catch {
      // not this cgroup version, or not Linux
    }
  }
  return undefined
}

let peakHeap = 0

/**
 * The process's figures: with a cgroup memory limit, peak RSS (`resourceUsage().maxRSS`) against
 * it; otherwise peak heap use against V8's heap limit. Node exposes no peak heap, so the peak is
 * the highest `used_heap_size` seen by any sample in this process.
 */
export async function sampleMemory(): Promise<MemorySample> {
  const limit = await cgroupLimit()
  if (limit !== undefined)
    return { kind: 'rss', used: process.resourceUsage().maxRSS * 1024, limit }
  const heap = getHeapStatistics()
  peakHeap = Math.max(peakHeap, heap.used_heap_size)
  return { kind: 'heap', used: peakHeap, limit: heap.heap_size_limit }
}

/** `memory_limit`: peak use against the limit; `degraded` at 75 %, `down` at 90 %. */
export function memoryLimitCheck(options: MemoryLimitOptions = {}): HealthCheck {
  const degradedAt = options.degradedAt ?? 0.75
  const downAt = options.downAt ?? 0.9
  const sample = options.sample ?? sampleMemory
  return {
    name: 'memory_limit',
    async run() {
      const { kind, used, limit } = await sample()
      const share = limit > 0 ? used / limit : 0
      const percent = Math.round(share * 1000) / 10
      const what = kind === 'heap' ? 'peak heap' : 'peak RSS'
      const against = kind === 'heap' ? "V8's heap limit" : 'the cgroup limit'
      const message = `${what} ${formatBytes(used)} of ${formatBytes(limit)} (${percent}% of ${against})`
      const details = {
        source: kind,
        used_bytes: used,
        limit_bytes: limit,
        used_percent: percent,
        degraded_at_percent: degradedAt * 100,
        down_at_percent: downAt * 100,
      }
      if (share >= downAt) return result('down', 'memory_limit', message, details)
      if (share >= degradedAt) return result('degraded', 'memory_limit', message, details)
      return result('ok', 'memory_limit', message, details)
    },
  }
}
