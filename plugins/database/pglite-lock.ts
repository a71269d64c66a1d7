// PGlite allows one process per data directory: a second one sees a stale copy of the files and
// corrupts them when it writes. An on-disk embedded database is therefore locked while open: a
// file beside the directory (`<dir>.lock`) holds the pid of the process that has it open, linked
// into place whole (atomic: of two processes one wins, and none reads it half written). Within one process the lock is re-entrant (`fw
// dev` opens the database early and the app's build takes it over, the CLI's copy of the plugin
// and the app's may both open it): it is counted in a global slot and released when the last
// handle closes, and at the process's exit. A lock whose pid is not running is stale and taken
// over. Guarded by test/e2e/pglite-lock.test.ts.
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname } from 'node:path'
import { isProcessRunning } from 'fw'
import { databaseErrors } from './errors.js'

interface Held {
  /** Open handles of this process, per data directory. */
  readonly counts: Map<string, number>
  exitHooked: boolean
}

const SLOT = Symbol.for('fw.database.pgliteLocks')
type Slot = { [SLOT]?: Held }

function held(): Held {
  const slot = globalThis as Slot
  return (slot[SLOT] ??= { counts: new Map(), exitHooked: false })
}

/** The lock file of a data directory: beside it, so that it is no file of the cluster. */
export function lockFileOf(dataDir: string): string {
  return `${dataDir.replace(/[/\\]+$/, '')}.lock`
}

/** The pid a lock file names, or undefined when it holds none (half written, emptied). */
function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function removeIfOurs(file: string): void {
  try {
    if (holderOf(file) === process.pid) unlinkSync(file)
  } catch {
    // Already gone.
  }
}

/**
 * Removes the lock file `file` judged stale (its holder `stale`, read before, is not running),
 * unless another process took it over since: the file is moved aside (one process moves a given
 * file) and what was moved is looked at; a lock that names another holder than the stale one is a
 * live one, and goes back (test/plugins/database/pglite-lock-race.test.ts).
 */
function removeStale(file: string, stale: number | undefined): void {
  const aside = `${file}.${process.pid}.stale`
  try {
    renameSync(file, aside)
  } catch {
    return // Another process moved it first: the next attempt meets what it made.
  }
  try {
    if (holderOf(aside) !== stale) linkSync(aside, file)
  } catch {
    // A third process made a lock meanwhile: it holds, the next attempt says so.
  } finally {
    rmSync(aside, { force: true })
  }
}

/** Takes the lock file, or throws `FW_ERR_DATABASE_IN_USE` naming the process that holds it. */
function take(dataDir: string): void {
  const file = lockFileOf(dataDir)
  // A new app has no `var/` yet: the directory beside which the lock goes is made first.
  mkdirSync(dirname(file), { recursive: true })
  // Written whole, then linked into place: no process ever reads a lock file without its pid.
  const mine = `${file}.${process.pid}.tmp`
  writeFileSync(mine, `${process.pid}\n`)
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, file)
        return
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error
      }
      const pid = holderOf(file)
      // A pid that is ours while this process holds no handle was left by an earlier process that
      // had the same pid (a container restarts with the same pids): stale too.
      if (pid !== undefined && pid !== process.pid && isProcessRunning(pid))
        throw Object.assign(databaseErrors.error('FW_ERR_DATABASE_IN_USE', { dataDir, pid }), {
          // Read by the CLI (describeError): printed as one line, `fw: <message>`, no stack.
          clipanion: { type: 'usage' },
        })
      removeStale(file, pid)
    }
  } finally {
    rmSync(mine, { force: true })
  }
}

/**
 * Locks the on-disk data directory `dataDir` for this process (re-entrant); answers the function
 * that releases this hold (once; the file goes with the last hold). Throws
 * `FW_ERR_DATABASE_IN_USE` when a running process holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  const state = held()
  const count = state.counts.get(dataDir) ?? 0
  if (count === 0) take(dataDir)
  state.counts.set(dataDir, count + 1)
  if (!state.exitHooked) {
    state.exitHooked = true
    process.on('exit', () => {
      for (const dir of held().counts.keys()) removeIfOurs(lockFileOf(dir))
    })
  }
  let released = false
  return () => {
    if (released) return
    released = true
    const left = (state.counts.get(dataDir) ?? 1) - 1
    if (left > 0) return void state.counts.set(dataDir, left)
    state.counts.delete(dataDir)
    removeIfOurs(lockFileOf(dataDir))
  }
}
