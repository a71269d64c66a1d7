import type { Knex, SqlEntityManager as EntityManager } from '@mikro-orm/knex'

/** What pg-boss runs its statements through (its `db` option): `$n` placeholders, rows back. */
export interface SqlExecutor {
  executeSql(text: string, values?: readonly unknown[]): Promise<{ rows: unknown[] }>
}

/**
 * A PostgreSQL array literal of `values`, every element quoted, as node-pg writes a JS array: knex
 * would expand an array binding into a list of placeholders (`$3, $4, …`), which pg-boss's
 * `$3::uuid[]` does not expect.
 */
function arrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((value) =>
    value === null || value === undefined
      ? 'NULL'
      : `"${String(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`,
  )
  return `{${elements.join(',')}}`
}

/**
 * pg-boss's `$n` statement as knex binds one: each `$n` becomes `?` with its value, in order of
 * appearance (a value used twice is bound twice). pg-boss's SQL holds no `?` of its own.
 */
export function positional(
  text: string,
  values: readonly unknown[] | undefined,
): { sql: string; bindings: unknown[] } {
  if (values === undefined || values.length === 0) return { sql: text, bindings: [] }
  const bindings: unknown[] = []
  const sql = text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = values[Number(n) - 1]
    bindings.push(Array.isArray(value) ? arrayLiteral(value) : (value ?? null))
    return '?'
  })
  return { sql, bindings }
}

/**
 * Runs pg-boss's statements through the app's own connection: on `em`'s transaction when it has
 * one (a dispatch that joins it), else on the ORM's pool (or PGlite's one connection). Each
 * statement is recorded in the current request's log like the app's own (`query.executed`).
 */
export function ormExecutor(em: EntityManager): SqlExecutor {
  return {
    async executeSql(text, values) {
      const { sql, bindings } = positional(text, values)
      const trx = em.getTransactionContext<Knex.Transaction>()
      const rows = await em.getConnection().execute(sql, bindings as never[], 'all', trx)
      return { rows: rows as unknown[] }
    },
  }
}
