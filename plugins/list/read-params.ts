// `fields`, `order`, `search`, `page` and `per_page` (README.md "Parameters"). Each reader keeps
// what it understands and drops the rest.
import { containsPattern, LIKE_ESCAPE, likeOperand, parseJson, type Fragment } from './fragment.js'
import { isFieldName } from './identifiers.js'
import { refuseLongTerm } from './input-limits.js'
import { dedupe, type CompiledSource, type ResolvedField } from './source.js'

/** One key of the ORDER BY. */
export interface OrderKey {
  readonly field: ResolvedField
  readonly desc: boolean
}

/** Which rows: an offset and a limit, and the page they make. */
export interface Paging {
  readonly page: number
  readonly perPage: number
  readonly offset: number
}

export const DEFAULT_PER_PAGE = 20
export const MAX_PER_PAGE = 500
/** Far past any real table; keeps `offset` an exact integer however large a page is asked for. */
const MAX_PAGE = 1_000_000
/** At most this many names are read from `fields` or `order`. */
const MAX_NAMES = 100

/** The strings of a comma-separated parameter, a JSON array (when `json`), or an array. */
function names(raw: unknown, json: boolean): string[] {
  let value = raw
  if (typeof value === 'string') {
    const text = value.trim()
    const parsed = json && text.startsWith('[') ? parseJson(text) : undefined
    value = Array.isArray(parsed) ? parsed : text.split(',')
  }
  if (!Array.isArray(value)) return []
  return value
    .slice(0, MAX_NAMES)
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => (json ? [v] : v.split(',')))
    .map((v) => v.trim())
}

function field(name: string, source: CompiledSource): ResolvedField | undefined {
  return isFieldName(name) ? source.lookup.get(name) : undefined
}

/**
 * `fields`: `id,name`, a JSON array, or an array from code; with a join, `title` and
 * `categories.title` are one field. `named` is what the response's `fields` lists: the caller's
 * surviving names without prefixes, or the default set when none survived.
 */
export function readFields(
  raw: unknown,
  source: CompiledSource,
): { fields: ResolvedField[]; named: string[] } {
  const found = dedupe(
    names(raw, true)
      .map((n) => field(n, source))
      .filter((f): f is ResolvedField => f !== undefined),
  )
  const fields = found.length > 0 ? found : [...source.defaults]
  return { fields, named: fields.map((f) => f.key) }
}

/** `order`: `name,-price`; unknown or malformed names are skipped, repeats too. */
export function readOrder(raw: unknown, source: CompiledSource): OrderKey[] {
  const keys: OrderKey[] = []
  const seen = new Set<string>()
  for (const item of names(raw, false)) {
    const desc = item.startsWith('-')
    const f = field(desc ? item.slice(1) : item, source)
    if (f === undefined || seen.has(f.qualified)) continue
    seen.add(f.qualified)
    keys.push({ field: f, desc })
  }
  return keys
}

/**
 * The ORDER BY actually run: the caller's keys, or the primary key descending when none remain;
 * the primary key is appended as a tie-breaker so that pages never overlap or skip a row.
 */
export function finalOrder(keys: readonly OrderKey[], source: CompiledSource): OrderKey[] {
  const pk = source.primaryKey
  if (keys.length === 0) return [{ field: pk, desc: true }]
  if (keys.some((k) => k.field.qualified === pk.qualified)) return [...keys]
  return [...keys, { field: pk, desc: keys[keys.length - 1]!.desc }]
}

/** A term as searched: trimmed; `undefined` when empty; 422 past `max` characters. */
function term(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined
  const text = String(value).trim()
  if (text === '') return undefined
  refuseLongTerm(text, max)
  return text
}

/** `field` contains the bound pattern, literally (see `containsPattern`). */
function contains(field: ResolvedField, source: CompiledSource): string {
  return `${likeOperand(field, source)} ${source.postgres ? 'ILIKE' : 'LIKE'} ? ${LIKE_ESCAPE}`
}

function anyField(text: string, source: CompiledSource): Fragment | undefined {
  const fields = source.searchable
  if (fields.length === 0) return undefined
  const pattern = containsPattern(text)
  return {
    sql: `(${fields.map((f) => contains(f, source)).join(' OR ')})`,
    bindings: fields.map(() => pattern),
    fields,
  }
}

/** An object search: each whitelisted field contains its term, ANDed. */
function fieldTerms(
  terms: Readonly<Record<string, unknown>>,
  source: CompiledSource,
  maxLength: number,
): Fragment[] {
  const out: Fragment[] = []
  for (const [name, raw] of Object.entries(terms).slice(0, MAX_NAMES)) {
    const f = field(name, source)
    const text = term(raw, maxLength)
    if (f === undefined || text === undefined) continue
    out.push({ sql: contains(f, source), bindings: [containsPattern(text)], fields: [f] })
  }
  return out
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * `search`: plain text looks in every searchable field (ORed); a JSON object (or an object from
 * code) maps whitelisted fields to terms, ANDed; an array ANDs its items, each a term (plain text)
 * or an object. Terms are literal: `%`, `_` and `\` match themselves (escaped, with an `ESCAPE`
 * clause). A term longer than `maxLength` characters is refused (422 `search_too_long`).
 */
export function readSearch(raw: unknown, source: CompiledSource, maxLength: number): Fragment[] {
  let value = raw
  if (typeof value === 'string') {
    const text = value.trim()
    const parsed = /^[[{]/.test(text) ? parseJson(text) : undefined
    value = typeof parsed === 'object' && parsed !== null ? parsed : text
  }
  const out: Fragment[] = []
  for (const item of Array.isArray(value) ? value.slice(0, MAX_NAMES) : [value]) {
    if (isObject(item)) {
      out.push(...fieldTerms(item, source, maxLength))
      continue
    }
    const text = term(item, maxLength)
    const fragment = text === undefined ? undefined : anyField(text, source)
    if (fragment !== undefined) out.push(fragment)
  }
  return out
}

function integer(value: unknown): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined
  return typeof raw === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(raw) ? Number(raw) : undefined
}

/**
 * `page` (≥ 1, default 1) and `per_page` (clamped into 1…500, default 20); junk takes the default.
 * Exported by `fw/plugins/list` for a route that pages by hand as the list engine does.
 *
 * @example
 * const { perPage, offset } = readPaging(ctx.query.page, ctx.query.per_page)
 */
export function readPaging(page: unknown, perPage: unknown): Paging {
  const p = Math.min(MAX_PAGE, Math.max(1, integer(page) ?? 1))
  const size = Math.min(MAX_PER_PAGE, Math.max(1, integer(perPage) ?? DEFAULT_PER_PAGE))
  return { page: p, perPage: size, offset: (p - 1) * size }
}

/** The number of pages of `total` items: 1 when nothing matches. */
export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage))
}

/** An offset and a length read directly (DataTables' `start`, `length`); `length` -1 is "all". */
export function readWindow(start: unknown, length: unknown): { offset: number; limit: number } {
  const offset = Math.min(MAX_PAGE * MAX_PER_PAGE, Math.max(0, integer(start) ?? 0))
  const asked = integer(length) ?? 10
  const limit = asked < 0 ? MAX_PER_PAGE : Math.min(MAX_PER_PAGE, Math.max(1, asked))
  return { offset, limit }
}
