// Turns read parameters into statements: SQL text made only of quoted whitelisted identifiers,
// fixed keywords and `?` placeholders, with every value in `bindings`.
import { keysetPredicate } from './cursor.js'
import type { Fragment } from './fragment.js'
import type { OrderKey } from './read-params.js'
import type { ListDebug } from './list-debug.js'
import type { CompiledSource, ListValue, ResolvedField } from './source.js'

/** A statement ready to run. */
export interface Statement {
  readonly sql: string
  readonly bindings: readonly ListValue[]
}

/** Everything one list request asks for, validated. */
export interface ListPlan {
  readonly source: CompiledSource
  /** The columns selected, primary key first, then the requested fields. */
  readonly select: readonly ResolvedField[]
  /** Selected only to build a cursor; left out of the rows. */
  readonly hidden: readonly ResolvedField[]
  readonly filter: readonly Fragment[]
  readonly search: readonly Fragment[]
  readonly order: readonly OrderKey[]
  /** The keyset cursor's values, when continuing after one. */
  readonly after: readonly ListValue[] | undefined
}

/** ANDs fragments; each is self-contained (an OR inside one is parenthesised by its builder). */
function and(parts: readonly Fragment[]): Statement {
  return {
    sql: parts.map((p) => p.sql).join(' AND '),
    bindings: parts.flatMap((p) => p.bindings),
  }
}

function scope(source: CompiledSource): Fragment[] {
  return source.scope === undefined
    ? []
    : [{ sql: `(${source.scope.sql})`, bindings: source.scope.bindings, fields: [] }]
}

function from(source: CompiledSource, used: readonly ResolvedField[]): string {
  const needed = new Set(used.map((f) => f.join).filter((j) => j !== undefined))
  let sql = `FROM "${source.from}"`
  for (const [alias, clause] of source.joins) if (needed.has(alias)) sql += ` ${clause}`
  return sql
}

function selectList(fields: readonly ResolvedField[]): string {
  return fields.map((f) => `${f.sql} AS "${f.key}"`).join(', ')
}

function orderList(order: readonly OrderKey[]): string {
  return order.map((k) => `${k.field.sql} ${k.desc ? 'DESC' : 'ASC'}`).join(', ')
}

/** The conditions of the data statement: scope, filter, search, then the cursor. */
function conditions(plan: ListPlan, withSearch: boolean): Fragment[] {
  const parts = [...scope(plan.source), ...plan.filter, ...(withSearch ? plan.search : [])]
  if (plan.after !== undefined) parts.push(keysetPredicate(plan.order, plan.after))
  return parts
}

/** The page's statement: `limit` rows from `offset` (ignored after a cursor); every row without a window. */
export function dataStatement(
  plan: ListPlan,
  window: { offset: number; limit: number } | undefined,
): Statement & { debug: ListDebug } {
  const where = and(conditions(plan, true))
  const columns = [...plan.select, ...plan.hidden]
  const used = [
    ...columns,
    ...plan.filter.flatMap((f) => f.fields),
    ...plan.search.flatMap((f) => f.fields),
    ...plan.order.map((k) => k.field),
  ]
  const select = selectList(columns)
  const order = orderList(plan.order)
  let paging = ''
  const pagingBindings: number[] = []
  if (window !== undefined && plan.after === undefined) {
    paging = ' LIMIT ? OFFSET ?'
    pagingBindings.push(window.limit, window.offset)
  } else if (window !== undefined) {
    paging = ' LIMIT ?'
    pagingBindings.push(window.limit)
  }
  return {
    sql: `SELECT ${select} ${from(plan.source, used)}${where.sql ? ` WHERE ${where.sql}` : ''} ORDER BY ${order}${paging}`,
    bindings: [...where.bindings, ...pagingBindings],
    debug: { filter: where.sql, order, selectFields: selectList(plan.select) },
  }
}

/**
 * The count of every row the filter (and, with `withSearch`, the search) matches, whatever the
 * page or cursor. Joins only when a condition needs one.
 */
export function countStatement(plan: ListPlan, withSearch: boolean): Statement {
  const parts = [...scope(plan.source), ...plan.filter, ...(withSearch ? plan.search : [])]
  const where = and(parts)
  const used = parts.flatMap((p) => p.fields)
  return {
    sql: `SELECT count(*) ${from(plan.source, used)}${where.sql ? ` WHERE ${where.sql}` : ''}`,
    bindings: where.bindings,
  }
}
