// `fw dev` starts opening the app's embedded database (PGlite's worker and its Postgres backend)
// before it registers tsx and loads the app, and the database plugin takes it when the first build
// opens its database (fw/plugins/database's `openEmbeddedEarly`): the start no longer waits for
// the two one after the other (bench/app-start.ts, the `dev` case). Which database that is: the
// database URL of `FW_CONFIG`, else `DATABASE_URL` (`.env` beside the app read into a copy of the
// environment), else the one the app opened at its last `fw dev`, remembered in
// `var/cache/fw-dev-database.json`. A PostgreSQL URL, or a directory that holds no database yet,
// starts nothing early. A guess the app contradicts is closed before the app opens its own
// (test/e2e/dev-early-database.test.ts).
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { writeFileAtomic, type Kernel } from 'fw'
import { loadEnvFile } from '../env-file.js'

/** What the last `fw dev` of the app opened: `database` is null when it was no embedded one. */
interface Remembered {
  /** `pglite://memory`, or `pglite://` and the data directory relative to the app module's folder. */
  readonly database: string | null
  readonly statementMs: number
  readonly inWorker: boolean
}

/** The embedded database to open early, as `openEmbeddedEarly` takes it. */
interface Expected {
  readonly dataDir: string | undefined
  readonly statementMs: number
  readonly inWorker: boolean
}

/** The database plugin's defaults (`database.statement_timeout`, `database.pglite_worker`). */
const DEFAULTS = { statementMs: 5000, inWorker: true }

function rememberedAt(moduleDir: string): string {
  return join(moduleDir, 'var', 'cache', 'fw-dev-database.json')
}

function readRemembered(moduleDir: string): Remembered | undefined {
  try {
    const value = JSON.parse(readFileSync(rememberedAt(moduleDir), 'utf8')) as Partial<Remembered>
    const { database, statementMs, inWorker } = value
    if (database !== null && typeof database !== 'string') return undefined
    if (typeof statementMs !== 'number' || typeof inWorker !== 'boolean') return undefined
    return { database, statementMs, inWorker }
  } catch {
    return undefined
  }
}

/** `FW_CONFIG`'s `database.url`, when it parses and sets one (the app reports a bad one). */
function fwConfigUrl(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const url = (JSON.parse(env.FW_CONFIG ?? '{}') as { database?: { url?: unknown } } | null)
      ?.database?.url
    return typeof url === 'string' ? url : undefined
  } catch {
    return undefined
  }
}

/** The embedded database the app is expected to open, or undefined (none, or a server). */
export function expectedDatabase(moduleDir: string, env: NodeJS.ProcessEnv): Expected | undefined {
  const own = { ...env }
  loadEnvFile(join(moduleDir, '.env'), own)
  const remembered = readRemembered(moduleDir)
  // As the config reads it: an empty variable is unset.
  const fromEnv = own.DATABASE_URL === '' ? undefined : own.DATABASE_URL
  const url = fwConfigUrl(own) ?? fromEnv ?? remembered?.database ?? undefined
  if (url === undefined || !url.startsWith('pglite://')) return undefined
  const rest = url.slice('pglite://'.length)
  if (rest === '') return undefined
  const dataDir = rest === 'memory' ? undefined : resolve(moduleDir, rest)
  // Only a directory that holds a database already: a guess never creates one.
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) return undefined
  return { ...DEFAULTS, ...remembered, dataDir }
}

/**
 * How much of a WebAssembly function V8 runs before it optimises it (V8's "tiering budget", a
 * rough count of bytes executed), under `fw dev`: 100 times V8's default. The embedded database
 * (PGlite) is WebAssembly, and its start alone made V8 optimise functions for ~0.5 s of CPU on
 * background threads, which took a core from loading the app on a 2-core machine. A query a dev
 * server runs often is still optimised, later: 1,000 queries on PGlite ran ~5% slower after 5,000
 * than with the default (bench/app-start.ts measures the start, the `dev` case).
 */
const DEV_WASM_TIERING_BUDGET = 180_000_000

/**
 * Sets `fw dev`'s tiering budget, then starts opening the embedded database the app is expected to
 * open; answers what closes it unless the app's database plugin took it (a no-op when nothing was
 * started).
 */
export async function openDatabaseEarly(
  moduleDir: string,
  env: NodeJS.ProcessEnv,
): Promise<() => Promise<void>> {
  // Before the embedded database's WebAssembly is compiled and instantiated, early or not.
  setFlagsFromString(`--wasm-tiering-budget=${DEV_WASM_TIERING_BUDGET}`)
  const expected = expectedDatabase(moduleDir, env)
  if (expected === undefined) return async () => undefined
  const { openEmbeddedEarly } = await import('fw/plugins/database')
  return openEmbeddedEarly(expected)
}

/** Remembers the database the app's first build opened, for the next `fw dev` (when it changed). */
export function rememberDatabase(moduleDir: string, kernel: Kernel): void {
  const target = kernel.hasPlugin('database') ? kernel.plugin('database').target : undefined
  const config = kernel.hasPlugin('database') ? kernel.config.database : undefined
  let database: string | null = null
  if (target?.kind === 'pglite') {
    const dir = target.dataDir === undefined ? 'memory' : relative(moduleDir, target.dataDir)
    const outside = dir === '' || dir.startsWith('..') || isAbsolute(dir)
    database = `pglite://${outside ? target.dataDir : dir}`
  }
  const remembered: Remembered = {
    database,
    statementMs: config === undefined ? DEFAULTS.statementMs : config.statement_timeout * 1000,
    inWorker: config === undefined ? DEFAULTS.inWorker : config.pglite_worker,
  }
  const text = `${JSON.stringify(remembered)}\n`
  const file = rememberedAt(moduleDir)
  try {
    if (readFileSync(file, 'utf8') === text) return
  } catch {
    // Not written yet.
  }
  try {
    writeFileAtomic(file, text)
  } catch {
    // A read-only app folder: the next start opens its database after loading the app, as before.
  }
}
