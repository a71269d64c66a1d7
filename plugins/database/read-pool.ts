import type { Knex } from '@mikro-orm/knex'

/**
 * Runs one statement with its bound values and answers its rows: prepared once per connection
 * under `name` when it has one, else parsed each time (still bound).
 */
export type ReadRows = (query: {
  readonly name?: string | undefined
  readonly text: string
  readonly values: readonly unknown[]
}) => Promise<Record<string, unknown>[]>

/** A read path of its own for the database plugin's hot lookups, and how to close it. */
export interface ReadPool {
  readonly read: ReadRows
  end(): Promise<void>
}

/** node-pg's `Query`: built from a text and its values, named afterwards (see `createReadPool`). */
interface PgQuery {
  name: string | undefined
}

interface PgPool {
  query(
    query: PgQuery,
    callback: (error: Error | undefined, result: { rows: Record<string, unknown>[] }) => void,
  ): void
  on(event: 'error', listener: (error: Error) => void): void
  end(): Promise<void>
}

interface PgDriver {
  Pool: new (config: Record<string, unknown>) => PgPool
  Query: new (text: string, values: readonly unknown[]) => PgQuery
}

/**
 * A `pg.Pool` beside knex's for the plugin's reads on PostgreSQL (bindings, `sql`, `query`,
 * `runStatement` outside a transaction): the same driver module (so the same
 * type parsers MikroORM installs), the same connection settings, as many connections as knex's pool
 * at most, opened on demand and closed when idle. knex's pool (tarn) costs some twenty promises and
 * two timers per acquire and release, a large share of a one-row lookup; pg's pool, called with a
 * callback, costs none. Undefined when knex's connections need more than the settings (a schema
 * search path set per connection) or the client is not node-pg (PGlite).
 */
export function createReadPool(client: Knex.Client, max: number): ReadPool | undefined {
  const knexClient = client as unknown as {
    dialect?: unknown
    driver?: Partial<PgDriver>
    connectionSettings?: Record<string, unknown>
    searchPath?: unknown
  }
  const driver = knexClient.driver
  if (
    knexClient.dialect !== 'postgresql' ||
    typeof driver?.Pool !== 'function' ||
    typeof driver.Query !== 'function' ||
    knexClient.connectionSettings === undefined ||
    knexClient.searchPath !== undefined
  )
    return undefined
  const pool = new driver.Pool({ ...knexClient.connectionSettings, max })
  // An idle connection that fails is dropped by the pool; without a listener, its error would end
  // the process.
  pool.on('error', () => undefined)
  const { Query } = driver
  return {
    read: ({ name, text, values }) =>
      new Promise((resolve, reject) => {
        // A query handed over as a config object is copied property by property through its
        // descriptors (node-pg's cloneQueryConfig, ≈ 1.1 µs); one built from its text and values is
        // not (≈ 0.05 µs), and its name is a plain field the driver reads when it sends it.
        const query = new Query(text, values)
        query.name = name
        pool.query(query, (error, result) => (error ? reject(error) : resolve(result.rows)))
      }),
    end: () => pool.end(),
  }
}
