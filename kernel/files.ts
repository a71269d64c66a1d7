// Writing a file that other processes read while it changes (a manifest, a generated document, a
// cache): one helper, so every such write is atomic in the same way.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Writes `data` to `file` atomically: into a file beside it named after this process, then renamed
 * into place, so a reader (another process included) sees the old content or the new one, never
 * part of either. Makes the folder when it is missing; removes the partial file when the write
 * fails, and throws what failed.
 *
 * @example
 * writeFileAtomic(join(root, 'var', 'cache', 'stats.json'), JSON.stringify(stats))
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const partial = `${file}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(partial, data)
    renameSync(partial, file)
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
}
