// A temp app and a database of its suite's own, for suites that run `fw` commands on both in
// order. The database must outlive each CLI process: a fresh PostgreSQL database on the
// PostgreSQL pass, else a PGlite directory (`data` inside a temp dir, which has room for more).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'uvu'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createTempApp, type TempApp, type TempAppSource } from './temp-app.js'
import { onPostgres } from '../fixtures/on-postgres.js'

/** What {@link tempAppDatabase} puts in a suite's context; `env` points `fw` at the app and database. */
export interface TempAppDatabase {
  app: TempApp
  db?: TestDatabase
  /** The PGlite pass's temp dir: the database is its `data` directory. */
  dir?: string
  env: NodeJS.ProcessEnv
}

/**
 * Registers the suite's `before` (the app written from `source`, the database created, `env` set
 * with `FW_APP`, `DATABASE_URL` and `env`) and its `after` (the app, the database and the
 * directory removed). `prefix` names PGlite's temp dir.
 */
export function tempAppDatabase<C extends TempAppDatabase>(
  test: Test<C>,
  prefix: string,
  source: TempAppSource,
  env: NodeJS.ProcessEnv = {},
): void {
  test.before(async (context) => {
    context.app = createTempApp(source)
    if (onPostgres) context.db = await createTestDatabase()
    else context.dir = mkdtempSync(join(tmpdir(), prefix))
    const url = context.db?.url ?? `pglite://${join(context.dir!, 'data')}`
    context.env = { ...context.app.env, DATABASE_URL: url, ...env }
  })
  test.after(async ({ app, db, dir }) => {
    app.remove()
    await db?.drop()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })
}

/** A migration of the temp app, written as a `defineMigration()` call. */
export interface MigrationSource {
  readonly name: string
  readonly up: readonly string[]
  readonly down?: readonly string[]
}

/** The import of the database plugin that {@link databaseSetup} needs in the app's preamble. */
export const DATABASE_IMPORT = `import database, { defineMigration } from ${JSON.stringify(import.meta.resolve('fw/plugins/database'))}`

/**
 * The setup registering the database plugin with `migrations` and a seed that runs `seedSql` and
 * says it wrote, whatever the database holds.
 */
export function databaseSetup(migrations: readonly MigrationSource[], seedSql: string): string {
  const defined = migrations.map((m) => `defineMigration(${JSON.stringify(m)})`).join(',\n      ')
  return `
  kernel.register(database, {
    migrations: [
      ${defined},
    ],
    seed: async (em) => {
      await em.execute(${JSON.stringify(seedSql)})
      return true
    },
  })`
}
