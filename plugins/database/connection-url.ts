import { isAbsolute, resolve } from 'node:path'
import type { FwError } from 'fw'
import { databaseErrors } from './errors.js'

/** Where the database is, as `DATABASE_URL` says. */
export type DatabaseTarget =
  | { readonly kind: 'postgresql'; readonly url: string; readonly dbName: string }
  | { readonly kind: 'pglite'; readonly dataDir: string | undefined }

/**
 * Reads a database URL: `postgresql://…` (or `postgres://…`) is a PostgreSQL server;
 * `pglite://memory` an embedded in-memory database; `pglite://<dir>` an embedded one persisted in
 * `<dir>` (relative to `base`: the plugin passes the app root, `kernel.root`). Anything else fails with a message naming DATABASE_URL.
 */
export function parseDatabaseUrl(url: string, base: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw invalid(url)
    }
    const dbName = decodeURIComponent(parsed.pathname.replace(/^\//, ''))
    if (!dbName) throw databaseErrors.error('FW_ERR_DATABASE_URL', { noDatabase: true })
    return { kind: 'postgresql', url, dbName }
  }
  if (url.startsWith('pglite://')) {
    const rest = url.slice('pglite://'.length)
    if (rest === '') throw invalid(url)
    if (rest === 'memory') return { kind: 'pglite', dataDir: undefined }
    return { kind: 'pglite', dataDir: isAbsolute(rest) ? rest : resolve(base, rest) }
  }
  throw invalid(url)
}

function invalid(url: string): FwError {
  return databaseErrors.error('FW_ERR_DATABASE_URL', { url })
}
