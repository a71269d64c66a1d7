// What a compiled copy was made from: each input file's modification time and size when it was
// compiled. The copy is used only while every input still has both (an edit changes at least the
// time; a file put back from elsewhere with an older time changes it too).
import { statSync } from 'node:fs'

/** An input file (absolute path), its modification time in ms and its size in bytes. */
export type Stamp = readonly [file: string, mtimeMs: number, size: number]

/** The stamp of `file` as it is now; undefined when it is missing or not a file. */
export function stampOf(file: string): Stamp | undefined {
  try {
    const stat = statSync(file)
    return stat.isFile() ? [file, stat.mtimeMs, stat.size] : undefined
  } catch {
    return undefined
  }
}

/** The stamps of `files` as they are now; undefined when one of them is missing. */
export function stampsOf(files: Iterable<string>): Stamp[] | undefined {
  const stamps: Stamp[] = []
  for (const file of files) {
    const stamp = stampOf(file)
    if (stamp === undefined) return undefined
    stamps.push(stamp)
  }
  return stamps
}

/** True when every file still has the time and size it was stamped with. */
export function unchanged(stamps: readonly Stamp[]): boolean {
  for (const [file, mtimeMs, size] of stamps) {
    const now = stampOf(file)
    if (now === undefined || now[1] !== mtimeMs || now[2] !== size) return false
  }
  return true
}
