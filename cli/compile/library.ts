// fw's compiled library, for the processes where tsx runs: the CLI from its TypeScript sources
// (`node --import tsx -C fw-source cli/bin.ts`, as `npm run playground` and the tests run it), and
// the built CLI once it registered tsx for a TypeScript app when fw's dist/ has no bundle (`npm run
// build` makes one, scripts/bundle-dist.mjs, which serves instead). Through tsx every module costs a round
// trip to Node's hooks thread and tsx's work on it, and fw is ~230 modules: most of such a
// command's time. The library is fw's package entries (`fw`, `fw/plugins/*`, …, not the
// playground: it is an app) and, from the sources, the CLI, compiled by esbuild into a few chunks
// (library-build.ts) once, and reused while none of its files changed (modification time and size).
// The app's own modules still go through tsx, as before; its imports of fw get the compiled entries
// (library-hooks.ts), so the app and the CLI share one copy of fw. What cannot be compiled, or
// written, runs module by module as before.
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import module from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { LibraryHooksData } from './library-hooks.js'
import { FORMAT, root, type LibraryMode, type Manifest } from './library-layout.js'
import { unchanged } from './stamps.js'

export { FORMAT, root, type LibraryMode, type Manifest } from './library-layout.js'

/** The compiled library of fw: where it is, and what it serves for which source module. */
export interface Library {
  /** The compiled `cli/cli.ts` (compiled from the sources only). */
  readonly cli: string | undefined
  readonly hooks: LibraryHooksData
}

/** The folders whose files make the library in `mode`. */
function libraryDirs(mode: LibraryMode): string[] {
  const base = mode === 'source' ? root : join(root, 'dist')
  return ['kernel', 'plugins', 'cli'].map((dir) => join(base, dir))
}

/** Where the library's builds for `mode` and their manifest live. */
function folderOf(mode: LibraryMode): string {
  const key = createHash('sha256')
    .update(JSON.stringify([FORMAT, root, mode, process.version]))
    .digest('hex')
    .slice(0, 16)
  return join(root, 'node_modules', '.cache', 'fw', `library-${key}`)
}

function readManifest(file: string): Manifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest
    return manifest.format === FORMAT ? manifest : undefined
  } catch {
    return undefined
  }
}

/** The library as the manifest describes it, when it is up to date. */
function fromManifest(folder: string, manifest: Manifest): Library | undefined {
  if (manifest.build === undefined || !unchanged(manifest.stamps)) return undefined
  const build = join(folder, manifest.build)
  if (!existsSync(build)) return undefined
  // Marked before it is checked whole: a compile in another process removes unmarked builds.
  markInUse(build)
  const url = (rel: string): string => pathToFileURL(join(build, rel)).href
  const entries: Record<string, string> = {}
  for (const [source, compiled] of Object.entries(manifest.entries)) {
    if (!existsSync(join(build, compiled))) return undefined
    entries[pathToFileURL(join(root, source)).href] = url(compiled)
  }
  return {
    cli: entries[pathToFileURL(join(root, 'cli', 'cli.ts')).href],
    hooks: { folder: `${pathToFileURL(build).href}/`, entries },
  }
}

/**
 * Marks the build as used by this process until it exits: a later compile removes old builds, but
 * not one a running process may still import a chunk from (a lazily imported plugin module).
 */
function markInUse(build: string): void {
  const users = join(build, '.users')
  const mark = join(users, String(process.pid))
  try {
    mkdirSync(users, { recursive: true })
    writeFileSync(mark, '')
  } catch {
    return // A folder this process may not write to: no process can remove the build either.
  }
  process.once('exit', () => {
    try {
      unlinkSync(mark)
    } catch {
      // Already gone (its build was removed): nothing to undo.
    }
  })
}

/** True when one of the library's files (or fw's package.json, tsconfig.json) changed after `than`. */
function changedSince(mode: LibraryMode, than: number): boolean {
  const newer = (file: string): boolean => statSync(file).mtimeMs > than
  try {
    if (newer(join(root, 'package.json')) || newer(join(root, 'tsconfig.json'))) return true
    return libraryDirs(mode).some((dir) =>
      readdirSync(dir, { recursive: true }).some((file) => newer(join(dir, String(file)))),
    )
  } catch {
    return true
  }
}

/**
 * The compiled library, compiled first when one of its modules changed; undefined when
 * `FW_COMPILE_CACHE=0`, when fw runs from its sources without the `fw-source` condition, or when it
 * cannot be compiled (fw's modules then load one by one as before, and report what is wrong with
 * them as before).
 */
export async function compiledLibrary(
  mode: LibraryMode,
  env: NodeJS.ProcessEnv,
): Promise<Library | undefined> {
  if (env.FW_COMPILE_CACHE === '0') return undefined
  try {
    if (mode === 'source' && !import.meta.resolve('fw').endsWith('.ts')) return undefined
    const folder = folderOf(mode)
    const manifestFile = join(folder, 'manifest.json')
    const manifest = readManifest(manifestFile)
    if (manifest !== undefined) {
      const library = fromManifest(folder, manifest)
      if (library !== undefined) return library
      // A failed compile is not tried again until one of the library's files changes.
      if (manifest.failedAt !== undefined && !changedSince(mode, manifest.failedAt))
        return undefined
    }
    mkdirSync(folder, { recursive: true })
    const { compile } = await import('./library-build.js')
    const made = await compile(mode, folder, manifestFile)
    return made === undefined ? undefined : fromManifest(folder, made)
  } catch {
    return undefined
  }
}

/** Serves the library's compiled modules, and its entries for imports of fw (library-hooks.ts). */
export function registerLibrary(library: Library): void {
  const hooks = import.meta.url.endsWith('.ts') ? './library-hooks.ts' : './library-hooks.js'
  module.register(new URL(hooks, import.meta.url), { data: library.hooks })
  // What tsx does for the sources: stack traces name the TypeScript files and lines.
  process.setSourceMapsEnabled(true)
}
