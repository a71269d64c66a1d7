// An in-memory PGlite database seeded with the files of a freshly initialised cluster (the cached
// template directory, pglite-template.ts), written straight into PGlite's memory file system
// before PostgreSQL starts. It replaces loading the cluster's tarball (`loadDataDir`), which parses
// the ~28 MB archive in JavaScript for every database: seeded, an in-memory database opens in
// about half the time (bench/pglite-start.ts). The files are read once per process into one
// SharedArrayBuffer, which a worker thread receives without a copy; each database copies them
// into its own file system (MEMFS copies what it is given), so no database sees another's writes
// (test/plugins/database/pglite-seed.test.ts).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MemoryFS } from '@electric-sql/pglite'

/**
 * Where PGlite 0.3 keeps its cluster in its virtual file system (its PGDATA); PGlite's version
 * is pinned beside the template's (pglite-template.ts), and a wrong path fails every open.
 */
export const PGLITE_DATA_PATH = '/tmp/pglite/base'

/** A cluster's files: one shared buffer, and each file's place in it. */
export interface ClusterFiles {
  readonly data: SharedArrayBuffer
  /** `[path inside the cluster, offset, length]`, a directory before what it holds; length -1: a directory. */
  readonly entries: ReadonlyArray<readonly [string, number, number]>
}

/** The part of Emscripten's FS that seeding uses. */
interface SeedableFs {
  analyzePath(path: string): { exists: boolean }
  mkdir(path: string): unknown
  writeFile(path: string, data: Uint8Array): void
}

const read = new Map<string, ClusterFiles | undefined>()

function load(dir: string): ClusterFiles | undefined {
  const found: Array<[string, Buffer | undefined]> = []
  const walk = (path: string): void => {
    for (const entry of readdirSync(join(dir, path), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const inner = path === '' ? entry.name : `${path}/${entry.name}`
      if (entry.isDirectory()) {
        found.push([inner, undefined])
        walk(inner)
      } else if (entry.isFile()) found.push([inner, readFileSync(join(dir, inner))])
      else throw new Error(`not a plain file: ${inner}`)
    }
  }
  walk('')
  const data = new SharedArrayBuffer(found.reduce((n, [, bytes]) => n + (bytes?.length ?? 0), 0))
  const view = new Uint8Array(data)
  let offset = 0
  const entries = found.map(([path, bytes]): [string, number, number] => {
    if (bytes === undefined) return [path, 0, -1]
    view.set(bytes, offset)
    offset += bytes.length
    return [path, offset - bytes.length, bytes.length]
  })
  return { data, entries }
}

/**
 * The files of the cluster at `dir` (read once per process); undefined without a directory or
 * when it cannot be read (something else than directories and files in it): the caller then
 * loads the cluster another way.
 */
export function clusterFiles(dir: string | undefined): ClusterFiles | undefined {
  if (dir === undefined) return undefined
  if (!read.has(dir)) {
    try {
      read.set(dir, load(dir))
    } catch {
      read.set(dir, undefined)
    }
  }
  return read.get(dir)
}

/**
 * Writes `files` under PGlite's PGDATA. The worker thread's program (pglite-thread.ts) repeats
 * these lines in plain JavaScript: keep the two alike.
 */
export function seedCluster(fs: SeedableFs, files: ClusterFiles): void {
  if (!fs.analyzePath(PGLITE_DATA_PATH).exists) fs.mkdir(PGLITE_DATA_PATH)
  for (const [path, offset, length] of files.entries) {
    const target = `${PGLITE_DATA_PATH}/${path}`
    if (length < 0) fs.mkdir(target)
    else fs.writeFile(target, new Uint8Array(files.data, offset, length))
  }
}

/** PGlite's memory file system, seeded with `files` before PostgreSQL starts. */
export function seededFs(Memory: typeof MemoryFS, files: ClusterFiles): MemoryFS {
  class Seeded extends Memory {
    override async initialSyncFs(): Promise<void> {
      await super.initialSyncFs()
      const fs = this.pg?.Module.FS
      if (fs === undefined) throw new Error('PGlite has no file system to seed')
      seedCluster(fs, files)
    }
  }
  return new Seeded()
}
