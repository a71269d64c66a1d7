// The DataTables server-side protocol over the list engine: `draw`, `start`, `length`,
// `search[value]`, `order[i][column]`, `order[i][dir]`, `columns[i][data]` in;
// `{draw, recordsTotal, recordsFiltered, data}` out.
import type { SqlEntityManager } from '@mikro-orm/knex'
import type { Reply, RequestContext } from 'fw'
import { countStatement, dataStatement } from './compile.js'
import { compiledFor, countOf, planList, present, run, type ListRow } from './engine.js'
import { answerList, errorEnvelope, showsListDetails } from './envelope.js'
import { refuseNul } from './input-limits.js'
import { readWindow } from './read-params.js'
import type { ListSource } from './source.js'

/** A DataTables answer. */
export interface DatatableResult {
  /** The request's `draw`, as an integer (0 when absent). */
  draw: number
  /** Rows before the search (recounted only when a search is active). */
  recordsTotal: number
  /** Rows after the search. */
  recordsFiltered: number
  data: ListRow[]
}

type Query = Readonly<Record<string, unknown>>

function record(value: unknown): Query {
  return typeof value === 'object' && value !== null ? (value as Query) : {}
}

/** `columns[i]` by index, from what qs made of it (an array, or an object past its array limit). */
function columnAt(columns: unknown, index: unknown): Query | undefined {
  const i = typeof index === 'string' && /^\d{1,4}$/.test(index) ? Number(index) : undefined
  if (i === undefined) return undefined
  const found = (record(columns) as Record<number, unknown>)[i]
  return found === undefined ? undefined : record(found)
}

function draw(value: unknown): number {
  return typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : 0
}

/** `columns[i][search][value]` of each column not marked `searchable=false`, by its `data`. */
function columnSearches(query: Query): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const entry of Object.values(record(query.columns))) {
    const column = record(entry)
    const value = record(column.search).value
    if (typeof column.data === 'string' && column.searchable !== 'false' && value !== undefined)
      out[column.data] = value
  }
  return out
}

/**
 * Translates DataTables parameters into the engine's: the columns' `data` names become `fields`,
 * `order[i]` points at a column (one marked `orderable=false` is skipped), `search[value]` is a
 * plain-text search and each column's `search[value]` a search of its field, all ANDed. The
 * engine's own `filter` parameter passes through.
 */
export function datatableParams(query: Query): {
  fields: string[]
  order: string[]
  search: unknown[]
  filter: unknown
} {
  const columns = Object.values(record(query.columns)).map((c) => record(c).data)
  const order: string[] = []
  for (const entry of Object.values(record(query.order))) {
    const o = record(entry)
    const column = columnAt(query.columns, o.column)
    if (column === undefined || column.orderable === 'false' || typeof column.data !== 'string')
      continue
    order.push(`${o.dir === 'desc' ? '-' : ''}${column.data}`)
  }
  return {
    fields: columns.filter((c): c is string => typeof c === 'string'),
    order,
    search: [record(query.search).value, columnSearches(query)],
    filter: query.filter,
  }
}

/**
 * Runs a DataTables request (a NUL in any of its parameters: 400 `invalid_input`, before any
 * statement). `recordsFiltered` counts the rows the search leaves; `recordsTotal`
 * is counted again without the search only when a search is active (otherwise both are equal).
 */
export async function fetchDatatable(
  em: SqlEntityManager,
  source: ListSource,
  query: Query,
): Promise<DatatableResult> {
  // Every parameter of the protocol, column searches included: a NUL anywhere is refused.
  refuseNul(query)
  const { plan, named } = planList(compiledFor(em, source), datatableParams(query))
  const window = readWindow(query.start, query.length)
  const statement = dataStatement(plan, window)
  const rows = await run(em, statement, named, statement.debug)
  const filtered =
    rows.length < window.limit && (rows.length > 0 || window.offset === 0)
      ? window.offset + rows.length
      : countOf(await run(em, countStatement(plan, true), named, statement.debug))
  const total =
    plan.search.length === 0
      ? filtered
      : countOf(await run(em, countStatement(plan, false), named, statement.debug))
  return {
    draw: draw(query.draw),
    recordsTotal: total,
    recordsFiltered: filtered,
    data: present(rows, plan.select),
  }
}

/**
 * Answers a DataTables request; on failure, the list error envelope with `draw` and zero counts
 * (DataTables shows its `error`).
 *
 * @example
 * router.get('products/datatable', (ctx) => datatableReply(ctx, products))
 */
export async function datatableReply(
  ctx: RequestContext,
  source: ListSource,
  query: Query = ctx.query,
): Promise<Reply> {
  return answerList(
    ctx,
    (em) => fetchDatatable(em, source, query),
    (error) => ({
      draw: draw(query.draw),
      recordsTotal: 0,
      recordsFiltered: 0,
      ...errorEnvelope(error, showsListDetails(ctx)),
    }),
  )
}
