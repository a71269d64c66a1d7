// Compiles fw's library (library.ts) with esbuild: its package entries and, from the sources, the
// CLI, bundled and split into chunks under `node_modules/.cache/fw/` in fw's own folder, so that
// the packages they import resolve from there as from fw's modules. Each build gets a folder of its
// own, named after its inputs' stamps; a build no running process uses is removed by the next.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { writeFileAtomic } from '../../kernel/files.js'
import { isProcessRunning } from '../../kernel/processes.js'
import {
  importMetaPlugin,
  loadEsbuild,
  nodeTarget,
  type BuildResult,
  type Plugin,
} from './esbuild.js'
import { FORMAT, root, type LibraryMode, type Manifest } from './library-layout.js'
import { stampsOf } from './stamps.js'

/** Package entries that are apps, not part of the library: they run as the app, through tsx. */
const APPS = new Set(['./playground'])

/** The library's package entries (`fw/plugins/api`) and their modules for `mode`. */
function packageEntries(mode: LibraryMode): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>
  }
  const entries = new Map<string, string>()
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const source = typeof target === 'object' ? target[CONDITION[mode]] : undefined
    if (source !== undefined && !APPS.has(entry)) entries.set(join('fw', entry), join(root, source))
  }
  return entries
}

/** The `exports` condition that names each entry's module. */
const CONDITION: Record<LibraryMode, string> = { source: 'fw-source', dist: 'default' }

/**
 * The modules to compile, by output name: the package entries, and from the sources the CLI (the
 * built CLI is loaded already when the built library is compiled: only the app needs tsx).
 */
function entryPoints(mode: LibraryMode): Record<string, string> {
  const points: Record<string, string> =
    mode === 'source' ? { 'cli/cli': join(root, 'cli', 'cli.ts') } : {}
  for (const module of packageEntries(mode).values()) {
    points[relative(root, module).replace(/\.[cm]?[jt]s$/, '')] = module
  }
  return points
}

/** Compiles fw's own entries in where fw imports them by name (`import … from 'fw'`). */
function selfPlugin(mode: LibraryMode): Plugin {
  const entries = packageEntries(mode)
  return {
    name: 'fw-self',
    setup(build) {
      build.onResolve({ filter: /^fw(?:\/|$)/ }, ({ path }) => {
        const source = entries.get(path)
        return source === undefined
          ? { errors: [{ text: `${path} is not a package entry of fw with a source` }] }
          : { path: source }
      })
    },
  }
}

/** Removes the builds other than `current` that no running process uses. */
function removeOldBuilds(folder: string, current: string | undefined): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === current) continue
    const dir = join(folder, entry.name)
    let users: string[] = []
    try {
      users = readdirSync(join(dir, '.users'))
    } catch {
      // No process ever marked it (a partial build): unused.
    }
    const young = entry.name.startsWith('.tmp-') && Date.now() - statSync(dir).mtimeMs < 600_000
    if (!young && !users.some((pid) => isProcessRunning(Number(pid)))) {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Problems that make the compiled copy differ from what tsx runs: the sources run instead. */
function refused(result: BuildResult): boolean {
  return result.errors.length > 0 || result.warnings.some((w) => w.id === 'import-is-undefined')
}

/**
 * Compiles the library for `mode` into a new build beside `manifestFile`, and writes the manifest:
 * what it made, or that it failed (then undefined: fw's modules run one by one).
 */
export async function compile(
  mode: LibraryMode,
  folder: string,
  manifestFile: string,
): Promise<Manifest | undefined> {
  const esbuild = loadEsbuild()
  if (esbuild === undefined) return undefined
  const started = Date.now()
  const tmp = join(folder, `.tmp-${process.pid}-${started}`)
  const points = entryPoints(mode)
  const tsconfig = join(root, 'tsconfig.json')
  const tsconfigRaw = mode === 'source' ? readFileSync(tsconfig, 'utf8') : undefined
  let result: BuildResult
  try {
    result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: points,
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: nodeTarget(),
      // Packages stay imports, resolved from the build's folder inside fw's own `node_modules/`
      // as from fw's sources; fw's own entries (`fw`, `fw/plugins/x`) are compiled in.
      packages: 'external',
      conditions: mode === 'source' ? ['fw-source'] : [],
      keepNames: true,
      sourcemap: 'linked',
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      metafile: true,
      logLevel: 'silent',
      ...(mode === 'source' ? { tsconfig } : {}),
      plugins: [selfPlugin(mode), importMetaPlugin(esbuild, tsconfigRaw)],
    })
  } catch (error) {
    // esbuild rejects with its errors; anything else (it could not start) fails the same way.
    const failure = error as Partial<BuildResult>
    result = {
      errors: failure.errors ?? [{ text: String(error) }],
      warnings: failure.warnings ?? [],
    }
  }
  const inputs = Object.keys(result.metafile?.inputs ?? {}).map((input) => join(root, input))
  const stamps = refused(result)
    ? undefined
    : stampsOf([...inputs, join(root, 'package.json'), ...(mode === 'source' ? [tsconfig] : [])])
  // An input written while it was compiled may have been read before or after: not kept.
  if (stamps === undefined || stamps.some(([, mtimeMs]) => mtimeMs >= started)) {
    rmSync(tmp, { recursive: true, force: true })
    writeFileAtomic(
      manifestFile,
      JSON.stringify({
        format: FORMAT,
        stamps: [],
        entries: {},
        failedAt: started,
      } satisfies Manifest),
    )
    return undefined
  }
  const entries: Record<string, string> = {}
  for (const [output, { entryPoint }] of Object.entries(result.metafile!.outputs)) {
    if (entryPoint !== undefined) entries[entryPoint] = relative(tmp, join(root, output))
  }
  const build = createHash('sha256').update(JSON.stringify(stamps)).digest('hex').slice(0, 16)
  try {
    renameSync(tmp, join(folder, build))
  } catch {
    // The same build, made by another process meanwhile: theirs serves.
    rmSync(tmp, { recursive: true, force: true })
  }
  const manifest: Manifest = { format: FORMAT, build, stamps, entries }
  writeFileAtomic(manifestFile, JSON.stringify(manifest))
  removeOldBuilds(folder, build)
  return manifest
}
