import { MikroORM, type Options } from '@mikro-orm/core'
import { PostgreSqlDriver } from '@mikro-orm/postgresql'
import type { DatabaseTarget } from './connection-url.js'
import type { EmbeddedDatabase } from './pglite-thread.js'

/** How long the app waits on its database (the database plugin's README, "Bounded waits"). */
export interface DatabaseTimeouts {
  /** For a connection: opening one, or a free one from the pool; 0 waits forever. */
  readonly acquireMs: number
  /** For one statement, on the server (`statement_timeout`) and on the client; 0: forever. */
  readonly statementMs: number
}

/** The embedded instance the ORM borrows, once its first connection (or `close`) has it. */
export interface EmbeddedSlot {
  pglite: EmbeddedDatabase | undefined
}

/** MikroORM on a PostgreSQL server, its waits bounded by `timeouts`; it connects on first use. */
export function initPostgreSql(
  common: Options,
  target: Extract<DatabaseTarget, { kind: 'postgresql' }>,
  timeouts: DatabaseTimeouts,
  warn: ((message: string) => void) | undefined,
): Promise<MikroORM> {
  return MikroORM.init({
    ...common,
    driver: PostgreSqlDriver,
    // The lifecycle makes sure the database exists first, and creates it only outside
    // production (database-exists.ts `ensureDatabase`).
    ensureDatabase: false,
    clientUrl: target.url,
    dbName: target.dbName,
    pool: { min: 0, max: 10 },
    driverOptions: {
      // Bounded waits: a refused, frozen or saturated server answers a request with an error
      // within these times instead of holding it (knex's own acquire default is 60 s, node-pg
      // waits forever). The read pool copies these connection settings.
      ...(timeouts.acquireMs > 0 ? { acquireConnectionTimeout: timeouts.acquireMs } : {}),
      // knex reports a lost connection ("Connection Error: …") on stderr; the app's log is the
      // place for it (the failing statement answers 503 anyway).
      ...(warn === undefined
        ? {}
        : { log: { warn, error: warn, deprecate: warn, debug: () => undefined } }),
      connection: {
        ...(timeouts.acquireMs > 0 ? { connectionTimeoutMillis: timeouts.acquireMs } : {}),
        // Server side: a slow statement is cancelled (57014) and its connection stays usable.
        // The client side (a server that stopped answering cannot cancel anything) is
        // `deadlines` (orm.ts `adaptStatements`), not node-pg's per-statement `query_timeout`.
        ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
      },
    },
  })
}

/** Where PGlite's first connection gets its instance: `starting`, else one opened with these. */
export interface PgliteStart {
  readonly starting: Promise<EmbeddedDatabase> | undefined
  readonly statementMs: number
  readonly inWorker: boolean
}

/** MikroORM on PGlite: its first connection gets the instance and keeps it in `embedded`. */
export async function initPglite(
  common: Options,
  dataDir: string | undefined,
  embedded: EmbeddedSlot,
  open: PgliteStart,
): Promise<MikroORM> {
  // Loaded only here: an app on PostgreSQL never loads the embedded database's driver.
  const [{ PGliteDriver, PGliteKnexDialect }, { openEmbedded }, { fixPgliteStatements }] =
    await Promise.all([
      import('mikro-orm-pglite'),
      import('./pglite-thread.js'),
      import('./pglite-statements.js'),
    ])
  fixPgliteStatements(PGliteKnexDialect)
  return await MikroORM.init({
    ...common,
    driver: PGliteDriver,
    dbName: 'postgres',
    driverOptions: {
      connection: {
        // knex-pglite uses `query`, `exec` and `waitReady`: what `EmbeddedDatabase` has.
        pglite: async () => {
          embedded.pglite ??= await (open.starting ??
            openEmbedded(dataDir, { statementMs: open.statementMs, inWorker: open.inWorker }))
          return embedded.pglite
        },
      },
    },
  })
}
