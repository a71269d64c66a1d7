import type { PGlite } from '@electric-sql/pglite'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { writeFileAtomic } from 'fw'
import { clusterFiles, type ClusterFiles, seededFs } from './pglite-seed.js'
import { pgliteWasm } from './pglite-wasm.js'

/**
 * Creates a PGlite instance from the binary fw compiles (pglite-wasm.ts); PGlite's module loads
 * here, on first need: a database opened in a worker thread never loads it in this one.
 */
async function create(
  dataDir: string | undefined,
  options: { loadDataDir?: Blob; files?: ClusterFiles } = {},
): Promise<PGlite> {
  const [pglite, wasmModule] = await Promise.all([import('@electric-sql/pglite'), pgliteWasm()])
  const { files, ...rest } = options
  return pglite.PGlite.create({
    ...rest,
    ...(files === undefined ? {} : { fs: seededFs(pglite.MemoryFS, files) }),
    ...(dataDir === undefined ? {} : { dataDir }),
    wasmModule,
  })
}

/** PGlite's version: a template is only valid for the build that made it. */
const PGLITE_VERSION = '0.3.16'

function templateDir(): string | undefined {
  // Project-local and per user (never a shared temp directory another user could plant files in).
  const modules = join(process.cwd(), 'node_modules')
  return existsSync(modules)
    ? join(modules, '.cache', 'fw', `pglite-${PGLITE_VERSION}-template`)
    : undefined
}

/** Moves a finished directory into place; false when another process got there first. */
function publish(partial: string, target: string): boolean {
  try {
    // An empty directory at the target (made by someone expecting a data directory) gives way;
    // rename() replaces only empty ones, and refuses a full one (then it is left as it is).
    if (existsSync(target) && readdirSync(target).length === 0) rmdirSync(target)
    renameSync(partial, target)
    return true
  } catch {
    rmSync(partial, { recursive: true, force: true })
    return false
  }
}

/**
 * A freshly initialised PGlite cluster, made once (PGlite's initdb, ~1.5 s) and kept as a
 * directory in `node_modules/.cache/fw/`. Undefined when it cannot be made: the caller then
 * initialises the data directory the ordinary way.
 */
async function template(): Promise<string | undefined> {
  const dir = templateDir()
  if (dir === undefined) return undefined
  if (existsSync(join(dir, 'PG_VERSION'))) return dir
  const partial = `${dir}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(dir), { recursive: true })
    rmSync(partial, { recursive: true, force: true })
    const blank = await create(partial)
    await blank.close() // a clean shutdown: copies start without recovery
    // Atomic: a concurrent reader sees the whole template or none.
    publish(partial, dir)
    return existsSync(join(dir, 'PG_VERSION')) ? dir : undefined
  } catch {
    rmSync(partial, { recursive: true, force: true })
    return undefined
  }
}

let image: Promise<Blob | undefined> | undefined

/**
 * A freshly initialised cluster as PGlite's data-directory tarball, for in-memory databases: made
 * once (initdb, then `dumpDataDir`) and kept beside the template directory, read once per process.
 * Loading it (~1 s of CPU) costs about half of an in-memory initdb (~2 s): a test suite opens
 * hundreds of in-memory databases. Undefined when it cannot be made or read: initdb then.
 */
function memoryImage(): Promise<Blob | undefined> {
  image ??= (async () => {
    const dir = templateDir()
    const file = dir === undefined ? undefined : `${dir}.tar`
    try {
      if (file !== undefined && existsSync(file)) return new Blob([readFileSync(file)])
      const blank = await create(undefined)
      const dumped = await blank.dumpDataDir('none')
      await blank.close()
      // Atomic: a concurrent reader sees the whole file or none.
      if (file !== undefined) writeFileAtomic(file, Buffer.from(await dumped.arrayBuffer()))
      return dumped
    } catch {
      return undefined
    }
  })()
  return image
}

/**
 * How to open PGlite: a data directory; or in memory, seeded with the template's files, else
 * from a cluster's tarball; or none of them (initdb in memory).
 */
export interface PgliteStart {
  readonly dataDir?: string
  readonly files?: ClusterFiles
  readonly image?: Blob
}

/**
 * Prepares what PGlite opens: in memory without a directory, seeded with the cached template's
 * files (pglite-seed.ts), else (no template) from the tarball of a fresh cluster (see
 * `memoryImage`); an existing data directory as it is; a new one as a copy of the cached
 * template. Copying the ~1,000 files natively and opening them as an existing cluster (~0.5 s
 * here) beats both initdb (~1.5 s) and PGlite's `loadDataDir` from a tarball (~0.7–1.1 s: the
 * files go through its JavaScript file system). The copy is made beside the data directory and
 * renamed into place, so a start that dies half-way leaves no half-made cluster.
 */
export async function pgliteStart(dataDir: string | undefined): Promise<PgliteStart> {
  if (dataDir === undefined) {
    const files = clusterFiles(await template())
    if (files !== undefined) return { files }
    const image = await memoryImage()
    return image === undefined ? {} : { image }
  }
  if (existsSync(join(dataDir, 'PG_VERSION'))) return { dataDir }
  const source = await template()
  if (source !== undefined) {
    const partial = `${dataDir}.${process.pid}.tmp`
    try {
      mkdirSync(dirname(dataDir), { recursive: true })
      rmSync(partial, { recursive: true, force: true })
      cpSync(source, partial, { recursive: true })
      publish(partial, dataDir)
    } catch {
      rmSync(partial, { recursive: true, force: true })
    }
    // Ours or a concurrent start's copy; else (the copy failed) initdb when PGlite opens it.
    if (existsSync(join(dataDir, 'PG_VERSION'))) return { dataDir }
  }
  mkdirSync(dataDir, { recursive: true })
  return { dataDir }
}

/** Opens PGlite in this thread, as {@link pgliteStart} prepared it. */
export async function createPglite(dataDir: string | undefined): Promise<PGlite> {
  const start = await pgliteStart(dataDir)
  return create(start.dataDir, {
    ...(start.files === undefined ? {} : { files: start.files }),
    ...(start.image === undefined ? {} : { loadDataDir: start.image }),
  })
}
