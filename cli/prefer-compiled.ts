import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

/**
 * Folders under the app's own folder whose files are not app sources: `public/` is served as it
 * is, never compiled, and the running app writes there (the openapi plugin's document), which must
 * not make the build look stale (test/cli/prefer-compiled.test.ts).
 */
const SKIPPED = new Set(['node_modules', 'dist', 'var', 'public', '.git'])
const SOURCE = /\.(?:[cm]?tsx?|[cm]?js|json)$/

/** The nearest folder at or above `dir` that holds a package.json. */
export function packageRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d
    if (dirname(d) === d) return undefined
  }
}

/**
 * True when a source file under `dir` was modified after `than` (a time in ms); `node_modules`,
 * `dist`, `var`, `public` and `.git` are not looked into.
 */
export function newerSourceExists(dir: string, than: number): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name) && newerSourceExists(join(dir, entry.name), than)) return true
    } else if (SOURCE.test(entry.name) && statSync(join(dir, entry.name)).mtimeMs > than) {
      return true
    }
  }
  return false
}

/**
 * The module to import for a TypeScript app module when the CLI runs compiled: `dist/<same path>.js`
 * under the app's package when `tsc` built it and no source under the app's folder changed since,
 * so the CLI skips registering tsx and transpiling the app (about half of `fw`'s cold start).
 * Otherwise, and when the CLI itself runs from TypeScript or `FW_APP_COMPILED=0`, the module as
 * found.
 */
export function preferCompiled(
  file: string,
  env: NodeJS.ProcessEnv,
  runsTypeScript: boolean,
): string {
  if (runsTypeScript || env.FW_APP_COMPILED === '0' || !/\.[cm]?ts$/.test(file)) return file
  const root = packageRoot(dirname(file))
  if (root === undefined) return file
  const rel = relative(root, file)
  if (rel.startsWith('..') || rel.startsWith('dist')) return file
  const compiled = join(root, 'dist', rel.replace(/\.([cm]?)ts$/, '.$1js'))
  if (!existsSync(compiled)) return file
  try {
    return newerSourceExists(dirname(file), statSync(compiled).mtimeMs) ? file : compiled
  } catch {
    return file
  }
}
