// Keyset paging: `after=<cursor>` continues after the last row of the previous page, so that a deep
// page costs what the first one does (an index seek instead of walking OFFSET rows).
import type { Fragment } from './fragment.js'
import { refuseNul } from './input-limits.js'
import type { OrderKey } from './read-params.js'
import type { ListValue } from './source.js'

/** Cursors longer than this are ignored. */
const MAX_CURSOR_LENGTH = 4096

/** The order a cursor belongs to: `-price,-id`. A cursor of another order is ignored. */
function signature(order: readonly OrderKey[]): string {
  return order.map((k) => `${k.desc ? '-' : ''}${k.field.qualified}`).join(',')
}

function bindable(value: unknown): ListValue {
  if (value === null || value === undefined) return null
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value
  return JSON.stringify(value)
}

/** The cursor that continues after `row` (a row as the driver returned it, keys by field key). */
export function encodeCursor(order: readonly OrderKey[], row: Record<string, unknown>): string {
  const values = order.map((k) => bindable(row[k.field.key]))
  return Buffer.from(JSON.stringify({ o: signature(order), v: values })).toString('base64url')
}

/**
 * The values a cursor carries, or `undefined` when it is malformed or from another order; a value
 * holding a NUL throws the 400 `invalid_input`.
 */
export function readCursor(raw: unknown, order: readonly OrderKey[]): ListValue[] | undefined {
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_CURSOR_LENGTH) return undefined
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (typeof decoded !== 'object' || decoded === null) return undefined
  const { o, v } = decoded as { o?: unknown; v?: unknown }
  if (o !== signature(order) || !Array.isArray(v) || v.length !== order.length) return undefined
  const ok = v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x))
  if (!ok) return undefined
  // No row holds a NUL (PostgreSQL text cannot): a cursor carrying one was forged, and is refused
  // as any other NUL in a list parameter is.
  refuseNul(v)
  return v as ListValue[]
}

/**
 * The rows after a cursor under `order`, NULLs placed as PostgreSQL sorts them (last ascending,
 * first descending). When every key runs one way over non-null columns this is a row comparison,
 * `("price", "id") < (?, ?)`, which a matching index answers with one seek; otherwise the expanded
 * form, led by a bound on the first key so an index still narrows the scan.
 */
export function keysetPredicate(
  order: readonly OrderKey[],
  values: readonly ListValue[],
): Fragment {
  const fields = order.map((k) => k.field)
  const sameWay = order.every((k) => k.desc === order[0]!.desc)
  if (sameWay && values.every((v) => v !== null) && fields.every((f) => !f.nullable)) {
    return {
      sql: `(${fields.map((f) => f.sql).join(', ')}) ${order[0]!.desc ? '<' : '>'} (${fields.map(() => '?').join(', ')})`,
      bindings: [...values],
      fields,
    }
  }
  const branches: { sql: string; bindings: ListValue[] }[] = []
  const equal: { sql: string; bindings: ListValue[] }[] = []
  order.forEach((key, i) => {
    const v = values[i]!
    const col = key.field.sql
    let after: { sql: string; bindings: ListValue[] } | undefined
    if (v === null) after = key.desc ? { sql: `${col} IS NOT NULL`, bindings: [] } : undefined
    else if (key.desc) after = { sql: `${col} < ?`, bindings: [v] }
    else
      after = key.field.nullable
        ? { sql: `(${col} > ? OR ${col} IS NULL)`, bindings: [v] }
        : { sql: `${col} > ?`, bindings: [v] }
    if (after !== undefined) {
      const parts = [...equal, after]
      branches.push({
        sql: parts.length === 1 ? parts[0]!.sql : `(${parts.map((p) => p.sql).join(' AND ')})`,
        bindings: parts.flatMap((p) => p.bindings),
      })
    }
    equal.push(
      v === null ? { sql: `${col} IS NULL`, bindings: [] } : { sql: `${col} = ?`, bindings: [v] },
    )
  })
  const first = order[0]!
  const v0 = values[0]!
  const col0 = first.field.sql
  const lead =
    v0 === null
      ? first.desc
        ? undefined
        : { sql: `${col0} IS NULL`, bindings: [] }
      : first.desc
        ? { sql: `${col0} <= ?`, bindings: [v0] }
        : first.field.nullable
          ? { sql: `(${col0} >= ? OR ${col0} IS NULL)`, bindings: [v0] }
          : { sql: `${col0} >= ?`, bindings: [v0] }
  const any =
    branches.length === 0
      ? { sql: 'FALSE', bindings: [] }
      : {
          sql: `(${branches.map((b) => b.sql).join(' OR ')})`,
          bindings: branches.flatMap((b) => b.bindings),
        }
  return {
    sql: lead === undefined ? any.sql : `${lead.sql} AND ${any.sql}`,
    bindings: lead === undefined ? any.bindings : [...lead.bindings, ...any.bindings],
    fields,
  }
}
