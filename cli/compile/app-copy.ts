// The compiled copy of a TypeScript app, for the CLI when the app's `dist/` is not up to date: each
// TypeScript module of the app's package compiled on its own by esbuild (tsx's own compiler) into
// `node_modules/.cache/fw-app/<stamp>/`, the package's layout kept. The app then runs as from
// `tsc`'s `dist/` (its root still the source folder, which the CLI passes to the factory), without
// tsx's loader hooks: a round trip to tsx's thread for every module loaded, ~0.4 s of
// `fw route:list` in a new app (bench/app-start.ts). A copy is made once for each state of the
// sources (their paths, times and sizes) and reused while they stay so.
//
// Where the copy could run differently from the sources, there is none and tsx runs the app as
// before (test/cli/app-copy.test.ts): a package that is not `"type": "module"` or has `imports`,
// a tsconfig.json that is not plain JSON or uses `extends`, `paths` or `baseUrl`, and a module
// whose relative imports name anything but another module of the copy (a `.ts` specifier, a JSON
// or other file beside it) or that imports its own package by name.
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { esbuildVersion, loadEsbuild, nodeTarget } from './esbuild.js'

/** Folders of the package that hold no module of the app (`dist/`, `var/`, `public/`, …). */
const SKIPPED = new Set(['node_modules', 'dist', 'var', 'public', '.git', 'test'])
/** A TypeScript module of the app; declaration files and tests are no part of it. */
const MODULE = /^[^.].*\.(?:ts|mts|tsx)$/
const NOT_MODULE = /\.(?:d|test|spec)\.[cm]?tsx?$/
/** The specifiers of static and dynamic imports and re-exports in compiled code. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g
/** A build older than this that is not the current one is removed (a process may still use it). */
const KEEP_MS = 24 * 60 * 60 * 1000

interface Source {
  /** The path relative to the package, `/`-separated. */
  readonly rel: string
  readonly mtimeMs: number
  readonly size: number
}

function sourcesIn(root: string, dir = root, found: Source[] = []): Source[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) sourcesIn(root, path, found)
    } else if (MODULE.test(entry.name) && !NOT_MODULE.test(entry.name)) {
      const { mtimeMs, size } = statSync(path)
      found.push({ rel: relative(root, path).split('\\').join('/'), mtimeMs, size })
    }
  }
  return found
}

/** The output name of a module: `.ts` and `.tsx` give `.js`, `.mts` gives `.mjs`. */
function outputOf(rel: string): string {
  return rel.replace(/\.mts$/, '.mjs').replace(/\.tsx?$/, '.js')
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** The compiler options to compile with, or undefined when the copy could run differently. */
function compilerOptions(pkgRoot: string): Record<string, unknown> | undefined {
  const file = join(pkgRoot, 'tsconfig.json')
  if (!existsSync(file)) return {}
  const tsconfig = readJson(file)
  if (tsconfig === undefined || 'extends' in tsconfig) return undefined
  const options = (tsconfig.compilerOptions ?? {}) as Record<string, unknown>
  return 'paths' in options || 'baseUrl' in options ? undefined : options
}

/**
 * True when every relative import of `code` (the module `rel`) names a module of the copy, and no
 * import names the package itself (`name` or `name/…`: the copy is outside the package).
 */
function importsResolve(
  code: string,
  rel: string,
  outputs: ReadonlySet<string>,
  name: string | undefined,
): boolean {
  for (const [, specifier] of code.matchAll(IMPORT)) {
    if (specifier!.startsWith('./') || specifier!.startsWith('../')) {
      if (!outputs.has(join(dirname(rel), specifier!).split('\\').join('/'))) return false
    } else if (name !== undefined && (specifier === name || specifier!.startsWith(`${name}/`))) {
      return false
    }
  }
  return true
}

function write(file: string, data: string): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, data)
}

/** Compiles every module into `folder`; false when one could run differently, or no esbuild. */
async function compileInto(
  pkgRoot: string,
  folder: string,
  sources: readonly Source[],
  options: Record<string, unknown>,
  name: string | undefined,
): Promise<boolean> {
  const esbuild = loadEsbuild()
  if (esbuild === undefined) return false
  const outputs = new Set(sources.map((s) => outputOf(s.rel)))
  for (const { rel } of sources) {
    const path = join(pkgRoot, rel)
    const { code } = await esbuild.transform(readFileSync(path, 'utf8'), {
      loader: rel.endsWith('.tsx') ? 'tsx' : 'ts',
      format: 'esm',
      target: nodeTarget(),
      sourcemap: 'inline',
      sourcefile: path,
      tsconfigRaw: { compilerOptions: options },
    })
    if (!importsResolve(code, rel, outputs, name)) return false
    write(join(folder, outputOf(rel)), code)
  }
  write(join(folder, 'package.json'), '{ "type": "module" }\n')
  return true
}

/** Removes the builds other than `current` not touched for a day. */
function removeOld(cache: string, current: string): void {
  const now = Date.now()
  for (const name of readdirSync(cache)) {
    const path = join(cache, name)
    if (name !== current && now - statSync(path).mtimeMs > KEEP_MS)
      rmSync(path, { recursive: true, force: true })
  }
}

/**
 * The compiled copy of the TypeScript app module `file` of the package at `pkgRoot`, made now if
 * the sources changed since the last; undefined when the copy could run differently from the
 * sources, or esbuild is not installed (tsx then runs the app). The copy's stack traces name the
 * sources (inline source maps, read once source maps are on).
 */
export async function appCopy(file: string, pkgRoot: string): Promise<string | undefined> {
  const pkg = readJson(join(pkgRoot, 'package.json'))
  if (pkg?.type !== 'module' || 'imports' in pkg) return undefined
  const options = compilerOptions(pkgRoot)
  const version = esbuildVersion()
  if (options === undefined || version === undefined) return undefined
  const sources = sourcesIn(pkgRoot)
  const rel = relative(pkgRoot, file).split('\\').join('/')
  if (!sources.some((s) => s.rel === rel)) return undefined
  const stamp = createHash('sha256')
    .update(JSON.stringify([version, process.versions.node, options, sources]))
    .digest('hex')
    .slice(0, 16)
  const cache = join(pkgRoot, 'node_modules', '.cache', 'fw-app')
  const folder = join(cache, stamp)
  const entry = join(folder, outputOf(rel))
  const complete = join(folder, '.complete')
  if (existsSync(complete)) return entry
  if (existsSync(join(folder, '.different'))) return undefined
  // Built aside and renamed into place: a process that finds the folder finds it whole.
  const building = `${folder}.${process.pid}`
  try {
    const name = typeof pkg.name === 'string' ? pkg.name : undefined
    const same = await compileInto(pkgRoot, building, sources, options, name)
    write(join(building, same ? '.complete' : '.different'), '')
    try {
      renameSync(building, folder)
    } catch {
      // Another process made the same copy first: use its.
      rmSync(building, { recursive: true, force: true })
    }
    removeOld(cache, stamp)
    return existsSync(complete) ? entry : undefined
  } catch {
    rmSync(building, { recursive: true, force: true })
    return undefined
  }
}
