import { existsSync, readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ControllerClass, Plugin } from 'fw'
import type { EntityDeclaration, MigrationEntry } from 'fw/plugins/database'

/** A module of the app: TypeScript from the sources, JavaScript under `dist/`; no tests, no maps. */
const MODULE = /^[^.].*\.(?:ts|js)$/
const SKIPPED = /\.(?:d|test)\.[jt]s$/

/** The default exports of the modules in `dir`, in file-name order (a missing folder has none). */
export async function defaultsIn<T>(dir: string): Promise<T[]> {
  if (!existsSync(dir)) return []
  const files = readdirSync(dir)
    .filter((f) => MODULE.test(f) && !SKIPPED.test(f))
    .sort((a, b) => basename(a, extname(a)).localeCompare(basename(b, extname(b))))
  const found: T[] = []
  for (const file of files) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as { default?: T }
    if (module.default === undefined)
      throw new Error(`${join(dir, file)} has no default export: export what it declares.`)
    found.push(module.default)
  }
  return found
}

/** The entities of `entities/` (each module default-exports one, made by `deferEntity`). */
export function entitiesIn(dir: string): Promise<EntityDeclaration[]> {
  return defaultsIn(dir)
}

/** The migrations of `migrations/` (each module default-exports one, made by `defineMigration`). */
export function migrationsIn(dir: string): Promise<MigrationEntry[]> {
  return defaultsIn(dir)
}

/** The controller classes of `controllers/` (each module default-exports one). */
export function controllersIn(dir: string): Promise<ControllerClass[]> {
  return defaultsIn(dir)
}

/** The plugins of `plugins/` (each module default-exports one, made by `definePlugin`). */
export function pluginsIn(dir: string): Promise<Plugin<void, unknown>[]> {
  return defaultsIn(dir)
}
