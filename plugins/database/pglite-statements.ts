// How the ORM's statements run on the in-process PGlite (mikro-orm-pglite's knex dialect).
//
// The dialect sends a raw statement through PGlite's multi-statement `exec` whenever
// `sql.split(';')` has more than one part, values and string literals included, and hands the
// ORM an array of results where it expects one: a `;` in a value answered a write with an error
// after the row was stored. Here a statement with bound values always goes through `query` (one
// statement, the extended protocol), its values sent as text as node-pg sends them; one without
// values through `exec` (the simple protocol, which runs a migration's several statements too),
// its one result handed over as a result, not as a list of one. Guarded by
// test/plugins/database/bound-values.test.ts.
import type { PGlite } from '@electric-sql/pglite'
import { TEXT_SERIALIZERS } from './text-parameters.js'

/** What knex hands a dialect's `_query`. */
interface KnexQuery {
  sql?: string
  bindings?: readonly unknown[]
  method?: string
  response?: unknown
}

async function runOnPglite(connection: PGlite, obj: KnexQuery): Promise<KnexQuery> {
  if (!obj.sql) throw new Error('The query is empty')
  const bindings = obj.bindings ?? []
  if (bindings.length > 0 || obj.method !== 'raw') {
    obj.response = await connection.query(obj.sql, [...bindings], {
      serializers: TEXT_SERIALIZERS,
    })
  } else {
    const results = await connection.exec(obj.sql)
    obj.response = results.length === 1 ? results[0] : results
  }
  return obj
}

/** Replaces the dialect's `_query` (on its prototype: every client of the class). */
export function fixPgliteStatements(dialect: { prototype: object }): void {
  ;(dialect.prototype as { _query: typeof runOnPglite })._query = runOnPglite
}
