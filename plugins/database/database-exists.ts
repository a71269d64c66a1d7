import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseTarget } from './connection-url.js'
import { databaseErrors } from './errors.js'

/** PostgreSQL's SQLSTATE for a connection to a database that does not exist. */
const INVALID_CATALOG_NAME = '3D000'

/**
 * Fails with `FW_ERR_DATABASE_MISSING` when the database the target names does not exist, and
 * creates nothing: for PGlite on disk, a data directory without `PG_VERSION` (looked at before
 * anything opens it, since opening makes one); for PostgreSQL, a server that refuses the
 * connection with 3D000 (one connection of its own, closed at once; other failures are thrown as
 * they are). In memory, a database always exists. Guarded by test/cli/migrate-read-only.test.ts.
 */
export async function assertDatabaseExists(
  target: DatabaseTarget,
  connectTimeoutMs: number,
): Promise<void> {
  if (target.kind === 'pglite') {
    if (target.dataDir !== undefined && !existsSync(join(target.dataDir, 'PG_VERSION')))
      throw databaseErrors.error('FW_ERR_DATABASE_MISSING', {
        database: `directory ${target.dataDir}`,
      })
    return
  }
  const { default: pg } = await import('pg')
  const client = new pg.Client({
    connectionString: target.url,
    ...(connectTimeoutMs > 0 ? { connectionTimeoutMillis: connectTimeoutMs } : {}),
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    if ((error as { code?: unknown }).code === INVALID_CATALOG_NAME)
      throw databaseErrors.error('FW_ERR_DATABASE_MISSING', {
        database: JSON.stringify(target.dbName),
      })
    throw error
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** PostgreSQL's SQLSTATE for `create database` of one that exists (a concurrent start made it). */
const DUPLICATE_DATABASE = '42P04'

/** The server of a PostgreSQL URL, as `host:port`: what an error names (never the password). */
export function serverOf(url: string): string {
  const { hostname, port } = new URL(url)
  return `${hostname}:${port === '' ? '5432' : port}`
}

/**
 * Makes sure the PostgreSQL database `target` names exists before the ORM connects to it: when it
 * does not, creates it if `create` (development, tests: answers true, and the caller logs it);
 * else (production, where a misspelt `DATABASE_URL` must not make a new, empty database) fails
 * with `FW_ERR_DATABASE_NOT_CREATED` naming the database and its server. Any other failure
 * (a server that cannot be reached) is thrown as it is. Guarded by
 * test/cli/production-database.test.ts.
 */
export async function ensureDatabase(
  target: Extract<DatabaseTarget, { kind: 'postgresql' }>,
  { create, connectTimeoutMs }: { readonly create: boolean; readonly connectTimeoutMs: number },
): Promise<boolean> {
  try {
    await assertDatabaseExists(target, connectTimeoutMs)
    return false
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'FW_ERR_DATABASE_MISSING') throw error
  }
  if (!create)
    throw Object.assign(
      databaseErrors.error('FW_ERR_DATABASE_NOT_CREATED', {
        database: target.dbName,
        server: serverOf(target.url),
      }),
      // Read by the CLI (describeError): printed as one line, `fw: <message>`, no stack.
      { clipanion: { type: 'usage' } },
    )
  const { default: pg } = await import('pg')
  const url = new URL(target.url)
  url.pathname = '/postgres'
  const client = new pg.Client({
    connectionString: url.toString(),
    ...(connectTimeoutMs > 0 ? { connectionTimeoutMillis: connectTimeoutMs } : {}),
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.query(`create database "${target.dbName.replaceAll('"', '""')}"`)
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code === DUPLICATE_DATABASE) return false
    throw error
  } finally {
    await client.end().catch(() => undefined)
  }
}
