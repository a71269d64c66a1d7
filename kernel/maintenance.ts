import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Default `Retry-After`, in seconds, when the flag file holds no number. */
export const DEFAULT_RETRY_AFTER = 300

/** The maintenance flag file of an application root: `var/MAINTENANCE`. */
export function maintenanceFile(root: string): string {
  return join(root, 'var', 'MAINTENANCE')
}

/** Writes the flag (what `fw down` does); `retryAfter` in seconds goes into the file. */
export function enterMaintenance(root: string, retryAfter: number = DEFAULT_RETRY_AFTER): string {
  const file = maintenanceFile(root)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${retryAfter}\n`)
  return file
}

/** Removes the flag (what `fw up` does); returns whether it was there. */
export function leaveMaintenance(root: string): boolean {
  const file = maintenanceFile(root)
  const was = existsSync(file)
  rmSync(file, { force: true })
  return was
}

/**
 * Reads the flag at most once per `intervalMs`, so a request costs a comparison, not a syscall.
 * `now` is a `performance.now()` reading the caller already has (a request's start).
 * Returns the retry-after seconds while the application is down, `undefined` while it is up.
 */
export function createMaintenanceProbe(
  root: string,
  intervalMs = 1000,
): (now?: number) => number | undefined {
  const file = maintenanceFile(root)
  let checkedAt = -Infinity
  let current: number | undefined
  return (now = performance.now()) => {
    if (now - checkedAt < intervalMs) return current
    checkedAt = now
    if (!existsSync(file)) return (current = undefined)
    let seconds = DEFAULT_RETRY_AFTER
    try {
      const text = readFileSync(file, 'utf8').trim()
      if (/^\d{1,7}$/.test(text)) seconds = Number(text)
    } catch {
      // An unreadable flag still means down; the default retry applies.
    }
    return (current = seconds)
  }
}
