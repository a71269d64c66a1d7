/**
 * What a development server (`fw dev`) keeps from one build of the app to the next in the same
 * process: the database plugin's connection (an embedded PGlite instance and its data included).
 * A plugin asks {@link carryOver} for it; outside `fw dev` there is none, and the plugin opens and
 * closes its resources as usual.
 */
export interface CarryOver {
  /** The value kept under `key` by an earlier build, if any. */
  get<T>(key: string): T | undefined
  /**
   * Keeps `value` under `key` for the next builds (replacing what was kept: its owner closes
   * that); `close` runs when the development server stops, after the last build closed.
   */
  set<T>(key: string, value: T, close: () => Promise<void>): void
}

interface Kept {
  readonly value: unknown
  readonly close: () => Promise<void>
}

// One per process, shared by every copy of this module (the CLI's and the app's may differ).
const SLOT = Symbol.for('fw.carryOver')
type Slot = { [SLOT]?: Map<string, Kept> }

/** The development server's carry-over, or undefined outside `fw dev`. */
export function carryOver(): CarryOver | undefined {
  const kept = (globalThis as Slot)[SLOT]
  if (kept === undefined) return undefined
  return {
    get: <T>(key: string) => kept.get(key)?.value as T | undefined,
    set: (key, value, close) => void kept.set(key, { value, close }),
  }
}

/**
 * Starts carrying resources over (`fw dev` calls it before the first build); the function it
 * returns closes everything kept, then stops carrying.
 */
export function startCarryOver(): () => Promise<void> {
  const kept = new Map<string, Kept>()
  ;(globalThis as Slot)[SLOT] = kept
  return async () => {
    delete (globalThis as Slot)[SLOT]
    for (const { close } of kept.values()) await close()
    kept.clear()
  }
}
