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
