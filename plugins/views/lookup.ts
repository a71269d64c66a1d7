import { statSync } from 'node:fs'
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path'
import { invalidTheme } from './errors.js'

/** A theme is one folder name under `themes/`: no separators, no `..`. */
const THEME_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

/**
 * What one render looks up with: its theme, and directories searched before the lookup's own (a
 * request's `ctx.state.viewPaths`: an area's templates, for requests inside the area only).
 */
export interface LookupScope {
  readonly theme?: string | undefined
  readonly first?: readonly string[] | undefined
}

/**
 * Where templates live: an ordered list of directories and the rule that maps a template name to a
 * file. For `products/index` with theme `dark`, each directory in turn is asked for
 * `themes/dark/products/index.eta`, then `products/index.eta`; the first file that exists wins.
 * A name starting with `./` or `../` is relative to the template that includes it, and is not
 * themed. No name resolves to a file outside the directories.
 */
export class TemplateLookup {
  #paths: string[]
  readonly #extension: string
  /** name (+ theme, or + including file) → file, or null for "none"; only when caching. */
  readonly #found: Map<string, string | null> | undefined

  constructor(paths: readonly string[], extension: string, cache: boolean) {
    this.#paths = paths.map((p) => resolve(p))
    this.#extension = extension.startsWith('.') || extension === '' ? extension : `.${extension}`
    this.#found = cache ? new Map() : undefined
  }

  /** The directories, searched in this order. */
  get paths(): readonly string[] {
    return this.#paths
  }

  /** Searches `dir` before every other directory. */
  prepend(dir: string): void {
    this.#paths = [resolve(dir), ...this.#paths]
    this.#found?.clear()
  }

  /** Searches `dir` after every other directory. */
  append(dir: string): void {
    this.#paths = [...this.#paths, resolve(dir)]
    this.#found?.clear()
  }

  /**
   * The files that would be tried for `name`, in order. `from` is the including template's file,
   * for relative names. Empty when the name leaves the directories.
   */
  candidates(name: string, scope: LookupScope = {}, from?: string): string[] {
    const theme = scope.theme
    if (theme !== undefined && !THEME_NAME.test(theme)) throw invalidTheme(theme)
    const roots =
      scope.first === undefined
        ? this.#paths
        : [...scope.first.map((p) => resolve(p)), ...this.#paths]
    const file = this.#withExtension(name)
    if (file.startsWith('./') || file.startsWith('../')) {
      if (from === undefined) return []
      const target = resolve(dirname(from), file)
      return roots.some((root) => isInside(root, target)) ? [target] : []
    }
    const normalised = posix.normalize(file.replace(/\\/g, '/')).replace(/^\/+/, '')
    if (normalised === '..' || normalised.startsWith('../')) return []
    const out: string[] = []
    for (const root of roots) {
      if (theme !== undefined) out.push(join(root, 'themes', theme, normalised))
      out.push(join(root, normalised))
    }
    return out
  }

  /** The file `name` resolves to, or `undefined` when none of the candidates exists. */
  find(name: string, scope: LookupScope = {}, from?: string): string | undefined {
    const relativeName = name.startsWith('./') || name.startsWith('../')
    const first = scope.first === undefined ? '' : scope.first.join('\0')
    const key = `${relativeName ? (from ?? '') : (scope.theme ?? '')}\0${first}\0${name}`
    const known = this.#found?.get(key)
    if (known !== undefined) return known ?? undefined
    const file = this.candidates(name, scope, from).find(isFile)
    this.#found?.set(key, file ?? null)
    return file
  }

  #withExtension(name: string): string {
    return this.#extension !== '' && name.endsWith(this.#extension)
      ? name
      : `${name}${this.#extension}`
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}
