// `fw dev` knows (or remembers) the app's embedded database before the app is loaded: it starts
// opening it then, so that PGlite's worker and its Postgres backend start while tsx registers and
// the app's modules load, and the plugin takes the opened instance when it opens the database
// (bench/app-start.ts, the `dev` case, measures the start). One per process, in a global slot: the
// CLI's copy of this module and the app's may differ.
import type { DatabaseTarget } from './connection-url.js'
import type { EmbeddedDatabase } from './pglite-thread.js'

/** How an embedded database is opened: what must match for the plugin to take an early one. */
export interface EmbeddedOpening {
  /** The data directory (absolute), or undefined for an in-memory database. */
  readonly dataDir: string | undefined
  readonly statementMs: number
  readonly inWorker: boolean
}

interface Early extends EmbeddedOpening {
  readonly embedded: Promise<EmbeddedDatabase>
}

const SLOT = Symbol.for('fw.database.earlyEmbedded')
type Slot = { [SLOT]?: Early }

function open(opening: EmbeddedOpening): Promise<EmbeddedDatabase> {
  return import('./pglite-thread.js').then((m) => m.openEmbedded(opening.dataDir, opening))
}

/**
 * Starts opening the embedded database `opening` describes, for the database plugin to take
 * (`fw dev`), and answers once its thread runs: the caller's next steps (registering tsx, loading
 * the app) block this thread's event loop, and the thread opens the database meanwhile. The
 * function answered closes it unless the plugin took it: the caller runs it once the app's first
 * build has opened its database (or failed to).
 */
export async function openEmbeddedEarly(opening: EmbeddedOpening): Promise<() => Promise<void>> {
  const slot = globalThis as Slot
  const started = import('./pglite-thread.js').then((m) =>
    m.startEmbedded(opening.dataDir, opening),
  )
  const embedded = started.then((s) => s.ready)
  // A failure is the plugin's to report when it takes it, or nobody's.
  embedded.catch(() => undefined)
  await started.catch(() => undefined)
  const early: Early = { ...opening, embedded }
  slot[SLOT] = early
  return async () => {
    if (slot[SLOT] !== early) return
    delete slot[SLOT]
    await embedded.then(
      (db) => db.close(),
      () => undefined,
    )
  }
}

/**
 * The embedded database for `target`, opened early when one was started for the same directory,
 * statement timeout and thread (an early one that failed is opened again here, and its error, if
 * any, is this opening's); an early one for another database is closed before this one opens, so
 * one directory is never open twice. Undefined when none was started: the caller opens its own.
 * Guarded by test/e2e/dev-early-database.test.ts.
 */
export function takeEarlyEmbedded(
  target: Extract<DatabaseTarget, { kind: 'pglite' }>,
  wanted: Omit<EmbeddedOpening, 'dataDir'>,
): Promise<EmbeddedDatabase> | undefined {
  const slot = globalThis as Slot
  const early = slot[SLOT]
  if (early === undefined) return undefined
  delete slot[SLOT]
  const opening: EmbeddedOpening = { ...wanted, dataDir: target.dataDir }
  const same =
    early.dataDir === opening.dataDir &&
    early.statementMs === opening.statementMs &&
    early.inWorker === opening.inWorker
  if (same) return early.embedded.catch(() => open(opening))
  return early.embedded.then(
    (db) => db.close().then(() => open(opening)),
    () => open(opening),
  )
}
