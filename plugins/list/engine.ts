import type { SqlEntityManager } from '@mikro-orm/knex'
import { currentContext } from 'fw'
import { countStatement, dataStatement, type ListPlan, type Statement } from './compile.js'
import { encodeCursor, readCursor } from './cursor.js'
import { ListQueryError } from './errors.js'
import type { ListDebug } from './list-debug.js'
import { currentSearchLimit, refuseNul } from './input-limits.js'
import { readFilter, type FilterEntry } from './read-filter.js'
import {
  finalOrder,
  readFields,
  readOrder,
  pageCount,
  readPaging,
  readSearch,
  type Paging,
} from './read-params.js'
import { isUnavailableError, runStatement, StatementError } from 'fw/plugins/database'
import { dedupe, type CompiledSource, type ListSource, type ResolvedField } from './source.js'

/**
 * The parameters of a list request. From a query string every value is a string (or what `qs`
 * makes of `filter[0][field]=…`); from code, the typed shapes below.
 */
export interface ListInput {
  /** `id,name`, a JSON array, or an array. */
  readonly fields?: string | readonly string[]
  /** `name,-price` (a leading minus: descending), or an array of such names. */
  readonly order?: string | readonly string[]
  /** A JSON array of `{field, op, value}` and `{or: [...]}`, or the array itself. */
  readonly filter?: string | readonly FilterEntry[]
  /** Plain text, a JSON object of field → term, an object, or an array of terms. */
  readonly search?: string | readonly string[] | Readonly<Record<string, string>>
  readonly page?: number | string
  readonly per_page?: number | string
  /** Keyset paging: `''` for the first page, then the previous page's `nextcursor`. */
  readonly after?: string
}

/** What a list reads: typed input from code, or a parsed query string. */
export type ListParams = ListInput | Readonly<Record<string, unknown>>

/** The pagination object of the list envelope (README.md "Responses"). */
export interface Pagination {
  currentpage: number
  itemsperpage: number
  totalitems: number
  totalpages: number
  hasnext: boolean
  hasprevious: boolean
  /** Only in keyset mode (`after` given): the cursor of the next page, or null on the last. */
  nextcursor?: string | null
}

/** A row of a list: whitelisted fields by their unprefixed names. */
export type ListRow = Record<string, unknown>

/** A successful list: the envelope's three keys, plus the SQL fragments it ran. */
export interface ListResult {
  data: ListRow[]
  pagination: Pagination
  /** The requested fields without table prefixes (the default set when none survived). */
  fields: string[]
  debug: ListDebug
}

declare module 'fw' {
  interface ContextState {
    /** The failure of this request's last unpaginated list fetch (list plugin). */
    listError?: ListQueryError | null
  }
}

let lastErrorOutsideRequests: ListQueryError | null = null

function isPostgres(em: SqlEntityManager): boolean {
  const dialect = (em.getKnex().client as { dialect?: unknown }).dialect
  return dialect === 'postgresql' || dialect === 'pglite' || dialect === 'pg'
}

function raw(params: ListParams, key: keyof ListInput): unknown {
  return (params as Readonly<Record<string, unknown>>)[key]
}

/** Resolves a source for the EntityManager's database. */
export function compiledFor(em: SqlEntityManager, source: ListSource): CompiledSource {
  return source.compile(em.getMetadata(), em.getPlatform(), isPostgres(em))
}

/** The parameters the engine reads: a NUL in any of them is refused (README.md "Refused input"). */
const READ: readonly (keyof ListInput)[] = [
  'fields',
  'order',
  'filter',
  'search',
  'page',
  'per_page',
  'after',
]

/**
 * Reads and validates a request's parameters against a source. Refuses, before any statement, a
 * NUL in a parameter it reads (400 `invalid_input`) and a search term or `LIKE` pattern longer
 * than `maxSearchLength` (default: {@link currentSearchLimit}; 422 `search_too_long`).
 */
export function planList(
  compiled: CompiledSource,
  params: ListParams,
  options: { keyset?: boolean; maxSearchLength?: number } = {},
): { plan: ListPlan; named: string[] } {
  refuseNul(...READ.map((key) => raw(params, key)))
  const maxLength = options.maxSearchLength ?? currentSearchLimit()
  const { fields, named } = readFields(raw(params, 'fields'), compiled)
  const select = dedupe([compiled.primaryKey, ...fields])
  const order = finalOrder(readOrder(raw(params, 'order'), compiled), compiled)
  const keyset = options.keyset ?? false
  const selected = new Set(select.map((f) => f.qualified))
  const plan: ListPlan = {
    source: compiled,
    select,
    hidden: keyset ? order.map((k) => k.field).filter((f) => !selected.has(f.qualified)) : [],
    filter: readFilter(raw(params, 'filter'), compiled, maxLength),
    search: readSearch(raw(params, 'search'), compiled, maxLength),
    order,
    after: keyset ? readCursor(raw(params, 'after'), order) : undefined,
  }
  return { plan, named }
}

/** Runs a statement, turning a database failure into the envelope's error. */
export async function run(
  em: SqlEntityManager,
  statement: Statement,
  named: readonly string[],
  debug: ListDebug,
): Promise<ListRow[]> {
  try {
    return await runStatement(em, statement)
  } catch (error) {
    if (!(error instanceof StatementError)) throw error
    const { message, sqlState, cause } = error.failure
    // An unreachable or frozen database is no failure of this list: the database plugin answers
    // it (503 with Retry-After), as for every other route.
    if (isUnavailableError(cause)) throw cause
    throw new ListQueryError(message, sqlState, named, debug, cause)
  }
}

/** The rows as the response shows them: selected fields in order, values converted. */
export function present(rows: readonly ListRow[], select: readonly ResolvedField[]): ListRow[] {
  return rows.map((row) => {
    const out: ListRow = {}
    for (const f of select) {
      const value = row[f.key]
      out[f.key] = f.convert === undefined ? value : f.convert(value)
    }
    return out
  })
}

/** The number in a `count(*)` row (PostgreSQL answers a string, PGlite a number). */
export function countOf(rows: readonly ListRow[]): number {
  return Number(rows[0]?.count ?? 0)
}

/**
 * Runs one list request: a page of rows and the count, as one parameterised statement each
 * (the count is skipped when the page itself tells the total). Throws a `ListQueryError` when the
 * database fails either.
 *
 * @example
 * const { data, pagination, fields } = await fetchList(em, products, ctx.query)
 */
export async function fetchList(
  em: SqlEntityManager,
  source: ListSource,
  params: ListParams = {},
): Promise<ListResult> {
  const compiled = compiledFor(em, source)
  const keyset = typeof raw(params, 'after') === 'string'
  const { plan, named } = planList(compiled, params, { keyset })
  const paging: Paging = readPaging(raw(params, 'page'), raw(params, 'per_page'))
  const window = keyset
    ? { offset: 0, limit: paging.perPage + 1 }
    : { offset: paging.offset, limit: paging.perPage }
  const statement = dataStatement(plan, window)
  const rows = await run(em, statement, named, statement.debug)
  let total: number
  if (!keyset && rows.length < paging.perPage && (rows.length > 0 || paging.offset === 0)) {
    total = paging.offset + rows.length
  } else {
    total = countOf(await run(em, countStatement(plan, true), named, statement.debug))
  }
  const more = keyset && rows.length > paging.perPage
  const page = more ? rows.slice(0, paging.perPage) : rows
  const totalpages = pageCount(total, paging.perPage)
  const pagination: Pagination = {
    currentpage: paging.page,
    itemsperpage: paging.perPage,
    totalitems: total,
    totalpages,
    hasnext: keyset ? more : paging.page < totalpages,
    hasprevious: keyset ? plan.after !== undefined : paging.page > 1,
  }
  if (keyset) pagination.nextcursor = more ? encodeCursor(plan.order, page[page.length - 1]!) : null
  return { data: present(page, plan.select), pagination, fields: named, debug: statement.debug }
}

function setLastError(error: ListQueryError | null): void {
  const ctx = currentContext()
  if (ctx !== undefined) ctx.state.listError = error
  else lastErrorOutsideRequests = error
}

/**
 * Every matching row, unpaginated, in the requested order. A failure answers `[]`, like an empty
 * result: ask {@link lastListError} which one it was.
 *
 * @example
 * const rows = await fetchAll(em, products, { filter: [{ field: 'stock', op: '=', value: 0 }] })
 * if (rows.length === 0 && lastListError()) throw lastListError()
 */
export async function fetchAll(
  em: SqlEntityManager,
  source: ListSource,
  params: ListParams = {},
): Promise<ListRow[]> {
  const { plan, named } = planList(compiledFor(em, source), params)
  const statement = dataStatement(plan, undefined)
  try {
    const rows = await run(em, statement, named, statement.debug)
    setLastError(null)
    return present(rows, plan.select)
  } catch (error) {
    if (!(error instanceof ListQueryError)) throw error
    setLastError(error)
    return []
  }
}

/**
 * The failure of the last {@link fetchAll} in this request (outside a request: in this process),
 * or `null` when it succeeded.
 */
export function lastListError(): ListQueryError | null {
  const ctx = currentContext()
  return ctx !== undefined ? (ctx.state.listError ?? null) : lastErrorOutsideRequests
}
