// Which declared routes a controllers directory defines, and their handlers' doc comments
// (docs/openapi.md "Which routes": the routes the app declares, narrowed to the handlers defined
// under the controllers directory and to a route-name namespace).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, extname, join, relative, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Route } from 'fw'
import { docComments, type DocComment } from './doc-comments.js'

/** Where a handler is defined. */
interface Origin {
  readonly file: string
  /** The class of a `[Class, method]` handler, or the function itself. */
  readonly name: string
}

/** A route of the scanned directory, with what its handler's source says. */
export interface ScannedRoute {
  readonly route: Route
  /** The handler's doc comment, if it has one. */
  readonly comment: DocComment | undefined
  /** The controller's name without a `Controller` suffix, or the module's name: the operation's tag. */
  readonly tag: string
  /** The tag's description: the controller class's doc comment, if it has one. */
  readonly tagComment: DocComment | undefined
}

const SOURCE = /\.(?:[cm]?ts|[cm]?js)$/
const SKIPPED = /\.(?:d|test|spec)\.[cm]?[jt]s$/

/** The module files under `dir`, recursively, in a stable order. */
function modulesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) return modulesUnder(path)
      return SOURCE.test(entry) && !SKIPPED.test(entry) ? [path] : []
    })
}

/** The nearest folder at or above `dir` that holds a package.json. */
function packageRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d
    if (dirname(d) === d) return undefined
  }
}

/**
 * The modules a source file may have been loaded as: itself, and its `tsc` output
 * (`dist/<same path>.js` under its package), which the CLI runs instead when it is up to date.
 */
function loadableAs(file: string): string[] {
  const root = /\.[cm]?ts$/.test(file) ? packageRoot(dirname(file)) : undefined
  if (root === undefined) return [file]
  const rel = relative(root, file)
  const compiled = join(root, 'dist', rel.replace(/\.([cm]?)ts$/, '.$1js'))
  return rel.startsWith('..') || !existsSync(compiled) ? [file] : [file, compiled]
}

/**
 * A module's namespace as tsx gives it to the code it compiles: for a CommonJS module compiled from
 * ESM (a `.ts` file outside a `"type": "module"` package), its exports object. Done here so that
 * the module reads alike whether fw runs from its sources, compiled or built.
 */
function esModuleInterop(namespace: Record<string, unknown>): Record<string, unknown> {
  const value = namespace.default
  return value !== null && typeof value === 'object' && '__esModule' in value
    ? (value as Record<string, unknown>)
    : namespace
}

/**
 * Every function and class a directory's modules export, with the source file that defines it.
 * Each module is imported as the app may have loaded it (source, or compiled): the same URL gives
 * the same module instance, so the handlers the routes hold are found by identity.
 */
async function exportsOf(dir: string): Promise<Map<unknown, Origin>> {
  const origins = new Map<unknown, Origin>()
  for (const file of modulesUnder(dir)) {
    let failure: unknown
    let loaded = 0
    for (const candidate of loadableAs(file)) {
      let mod: Record<string, unknown>
      try {
        mod = esModuleInterop(
          (await import(pathToFileURL(candidate).href)) as Record<string, unknown>,
        )
      } catch (error) {
        failure ??= error // TypeScript where it cannot run, say: the compiled twin may load
        continue
      }
      loaded++
      for (const [exported, value] of Object.entries(mod)) {
        if (typeof value !== 'function' || origins.has(value)) continue
        origins.set(value, { file, name: (value as { name?: string }).name || exported })
      }
    }
    if (loaded === 0) throw failure
  }
  return origins
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')
}

/** The route name prefix a directory stands for: `api/controllers/v1` → `v1.`; none → `''`. */
export function namespaceOf(dir: string): string {
  const parts = dir.split(/[\\/]/).filter(Boolean)
  const at = parts.lastIndexOf('controllers')
  const rest = at === -1 ? [] : parts.slice(at + 1)
  return rest.length === 0 ? '' : `${rest.join('.')}.`
}

/**
 * The routes whose handlers `dir` defines (a function it exports, or a method of a class it
 * exports), whose name starts with `namespace`, each with its doc comment and tag.
 */
export async function scanRoutes(
  routes: readonly Route[],
  dir: string,
  namespace: string,
): Promise<ScannedRoute[]> {
  const origins = await exportsOf(dir)
  // `*`, what `fw api:docs` prints for "no namespace", means every route.
  if (namespace === '*') namespace = ''
  const comments = new Map<string, Map<string, DocComment>>()
  const commentsOf = (file: string): Map<string, DocComment> => {
    let found = comments.get(file)
    if (found === undefined) comments.set(file, (found = docComments(readFileSync(file, 'utf8'))))
    return found
  }
  const scanned: ScannedRoute[] = []
  for (const route of routes) {
    if (route.classic) continue
    if (namespace !== '' && !(route.name ?? '').startsWith(namespace)) continue
    const h = route.handler
    const origin =
      typeof h === 'function' ? origins.get(h) : Array.isArray(h) ? origins.get(h[0]) : undefined
    if (origin === undefined) continue
    const key =
      typeof h === 'function'
        ? origin.name
        : `${origin.name}.${(h as readonly [unknown, string])[1]}`
    const tag =
      typeof h === 'function'
        ? pascal(basename(origin.file, extname(origin.file)).replace(/[-_]?controller$/i, ''))
        : origin.name.replace(/Controller$/, '') || origin.name
    const comments = commentsOf(origin.file)
    scanned.push({
      route,
      comment: comments.get(key),
      tag,
      tagComment: typeof h === 'function' ? undefined : comments.get(origin.name),
    })
  }
  return scanned
}

/** The sibling directories of `dir` (same parent), for the "holds more operations" warning. */
export function siblingsOf(dir: string): string[] {
  const parent = join(dir, '..')
  if (!existsSync(parent)) return []
  return readdirSync(parent)
    .map((entry) => join(parent, entry))
    .filter(
      (path) => path !== dir && statSync(path).isDirectory() && !basename(path).startsWith('.'),
    )
    .filter((path) => basename(path) !== 'node_modules')
}

/** A path relative to the app root, with `/` separators, as the CLI prints it. */
export function shown(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || '.'
}
