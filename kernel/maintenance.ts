import {
  existsSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
  mkdirSync,
  type FSWatcher,
} from 'node:fs'
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
 * Where several instances keep the maintenance state they share (the database plugin's, on
 * PostgreSQL): `fw down` and `fw up` write it there too, and every instance learns of it.
 */
export interface MaintenanceStore {
  /** Says where the state lives, for the CLI's lines (`the database`). */
  readonly description: string
  /** Writes the shared state (retry-after seconds while down, undefined to end it) and announces it. */
  write(retryAfter: number | undefined): Promise<void>
}

/** The maintenance probe: retry-after seconds while down, `undefined` while up. */
export interface MaintenanceProbe {
  (now?: number): number | undefined
  /**
   * The shared state as a store reported it (retry-after seconds, or undefined when up): the app
   * is down while the flag file or the shared state says so.
   */
  share(retryAfter: number | undefined): void
  /** Registers the store `fw down` and `fw up` write besides the file (one per app). */
  useStore(store: MaintenanceStore): void
  /** The store registered, if any. */
  readonly store: MaintenanceStore | undefined
  /**
   * Lets the paths under `prefix` (`/health/`) answer during maintenance:
   * a load balancer's probes, which would otherwise take every instance out and answer with
   * their own page, without `Retry-After`.
   */
  exempt(prefix: string): void
  /** True for a request path under an exempt prefix (one that climbs out with `..` is not). */
  exempts(path: string): boolean
  /** Stops watching the flag's directory. */
  close(): void
}

/**
 * Reads the flag when it may have changed, so a request costs a comparison, not a syscall: the
 * flag's directory (`var/`, or the root until `var/` exists) is watched, and any change there is
 * seen by the next request (`fw down --retry=120` over an earlier `fw down`, `fw up`). Where the
 * file system reports no changes, the flag is read again at most once per `intervalMs`. `now` is
 * a `performance.now()` reading the caller already has (a request's start).
 */
export function createMaintenanceProbe(root: string, intervalMs = 1000): MaintenanceProbe {
  const file = maintenanceFile(root)
  const varDir = dirname(file)
  let checkedAt = -Infinity
  let current: number | undefined
  let watcher: FSWatcher | undefined
  let watching = false
  const stale = () => {
    checkedAt = -Infinity
  }
  /** Watches `var/` (or the root, until `var/` appears); never keeps the process alive. */
  const arm = () => {
    const dir = existsSync(varDir) ? varDir : root
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        stale()
        if (dir === root && (name === 'var' || name === null)) {
          watcher?.close()
          arm()
        }
      })
      watcher.on('error', () => {
        watcher?.close()
        watcher = undefined
      })
    } catch {
      watcher = undefined // no watching here: the interval alone
    }
  }
  let shared: number | undefined
  const exempt: string[] = []
  let store: MaintenanceStore | undefined
  const probe = (now = performance.now()): number | undefined => shared ?? fromFile(now)
  const fromFile = (now: number): number | undefined => {
    if (!watching) {
      watching = true
      arm()
    }
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
  // `store` is read through a getter: Object.assign would copy its value once.
  Object.defineProperty(probe, 'store', { get: () => store, enumerable: true })
  return Object.assign(probe as typeof probe & { readonly store: MaintenanceStore | undefined }, {
    share(retryAfter: number | undefined) {
      shared = retryAfter
    },
    useStore(next: MaintenanceStore) {
      store = next
    },
    exempt(prefix: string) {
      exempt.push(`/${prefix.replace(/^\/+/, '')}`)
    },
    exempts(path: string) {
      if (exempt.length === 0 || path.includes('..') || path.includes('%')) return false
      for (const prefix of exempt) if (path.startsWith(prefix)) return true
      return false
    },
    close() {
      watcher?.close()
      watcher = undefined
    },
  })
}
