import { statfs } from 'node:fs/promises'
import { messageOf } from 'fw'
import { result, type HealthCheck } from '../types.js'

const MB = 2 ** 20

/** Options of {@link diskSpaceCheck}. */
export interface DiskSpaceOptions {
  /** The folder whose file system is measured. Default: the app root. */
  path?: string
  /** `degraded` below this many MB free (MB = 2^20 bytes). Default 500. */
  degradedBelowMb?: number
  /** `down` below this many MB free. Default 100. */
  downBelowMb?: number
}

/** Formats bytes as MB or GB with one decimal: `1.5 GB`, `420.0 MB`. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * MB
    ? `${(bytes / (1024 * MB)).toFixed(1)} GB`
    : `${(bytes / MB).toFixed(1)} MB`
}

/**
 * `disk_space`: free space (for an unprivileged process: `bavail`) and percentage used of the
 * file system holding `path`, via `fs.statfs`. `degraded` below 500 MB free, `down` below 100 MB
 * or when the file system cannot be read.
 */
export function diskSpaceCheck(root: string, options: DiskSpaceOptions = {}): HealthCheck {
  const path = options.path ?? root
  const degradedBelow = (options.degradedBelowMb ?? 500) * MB
  const downBelow = (options.downBelowMb ?? 100) * MB
  return {
    name: 'disk_space',
    async run() {
      let stats
      try {
        stats = await statfs(path)
      } catch (error) {
        return result(
          'down',
          'disk_space',
          `cannot read the file system of ${path}: ${messageOf(error)}`,
          { path },
        )
      }
      const free = stats.bavail * stats.bsize
      const total = stats.blocks * stats.bsize
      const usedPercent =
        total > 0 ? Math.round(((total - stats.bfree * stats.bsize) / total) * 1000) / 10 : 0
      const details = {
        path,
        free_bytes: free,
        total_bytes: total,
        used_percent: usedPercent,
        degraded_below_bytes: degradedBelow,
        down_below_bytes: downBelow,
      }
      const figures = `${formatBytes(free)} free of ${formatBytes(total)} (${usedPercent}% used)`
      if (free < downBelow)
        return result('down', 'disk_space', `${figures}: below ${formatBytes(downBelow)}`, details)
      if (free < degradedBelow)
        return result(
          'degraded',
          'disk_space',
          `${figures}: below ${formatBytes(degradedBelow)}`,
          details,
        )
      return result('ok', 'disk_space', figures, details)
    },
  }
}
