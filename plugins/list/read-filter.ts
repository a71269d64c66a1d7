// `filter`: a list of `{field, op, value}` conditions, ANDed, with `{or: [...]}` groups
// parenthesised (README.md "Parameters"). Anything not understood is dropped.
import { likeOperand, likeOperator, parseJson, type Fragment } from './fragment.js'
import { isFieldName } from './identifiers.js'
import { refuseLongTerm } from './input-limits.js'
import type { CompiledSource, ListValue, ResolvedField } from './source.js'

/** The operators a condition may use (README.md "Parameters", `filter`). */
export const OPERATORS = [
  '=',
  '!=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  'LIKE',
  'ILIKE',
  'IN',
  'NOT IN',
  'IS NULL',
  'IS NOT NULL',
] as const
export type Operator = (typeof OPERATORS)[number]

/** A condition as a caller writes it (JSON in the query string, or from code). */
export interface FilterCondition {
  readonly field: string
  readonly op: Operator | Lowercase<Operator>
  readonly value?: ListValue | readonly ListValue[]
}
/** A parenthesised group of conditions, ORed. */
export interface FilterGroup {
  readonly or: readonly FilterCondition[]
}
export type FilterEntry = FilterCondition | FilterGroup

/** At most this many entries (and members of a group) are read; the rest are dropped. */
const MAX_ENTRIES = 100
/** An `IN` list longer than this is dropped whole. */
const MAX_IN_MEMBERS = 1000

const KNOWN = new Set<string>(OPERATORS)

function operator(raw: unknown): Operator | undefined {
  if (typeof raw !== 'string' || raw.length > 16) return undefined
  const op = raw.trim().toUpperCase().replace(/\s+/g, ' ')
  return KNOWN.has(op) ? (op as Operator) : undefined
}

/** A scalar value as it will be bound, or `undefined` when it is none. */
function scalar(value: unknown): ListValue | undefined {
  if (value === null) return null
  if (typeof value === 'string') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'boolean') return value
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The entries of a filter parameter: a JSON string, an array, or a single object. */
function entriesOf(raw: unknown): unknown[] {
  const value = typeof raw === 'string' ? parseJson(raw) : raw
  if (Array.isArray(value)) return value.slice(0, MAX_ENTRIES)
  // qs turns `filter[0][field]=…` into an array, but into an object keyed '0', '1'… past its
  // array limit; a lone condition object is accepted too.
  if (isRecord(value)) {
    if ('field' in value || 'or' in value) return [value]
    return Object.values(value).slice(0, MAX_ENTRIES)
  }
  return []
}

function condition(raw: unknown, source: CompiledSource, maxLength: number): Fragment | undefined {
  if (!isRecord(raw) || !isFieldName(raw.field)) return undefined
  const field = source.lookup.get(raw.field)
  const op = operator(raw.op)
  if (field === undefined || op === undefined) return undefined
  const one = (sql: string, bindings: ListValue[] = []): Fragment => ({
    sql,
    bindings,
    fields: [field],
  })
  if (op === 'IS NULL' || op === 'IS NOT NULL') return one(`${field.sql} ${op}`)
  if (op === 'IN' || op === 'NOT IN') return inList(field, op, raw.value, one)
  const value = scalar(raw.value)
  if (value === undefined) return undefined
  if (value === null) {
    if (op === '=') return one(`${field.sql} IS NULL`)
    if (op === '!=' || op === '<>') return one(`${field.sql} IS NOT NULL`)
    return undefined
  }
  if (op === 'LIKE' || op === 'ILIKE') {
    // A pattern costs what a search term does: the same cap.
    refuseLongTerm(String(value), maxLength)
    return one(`${likeOperand(field, source)} ${likeOperator(source, op)} ?`, [String(value)])
  }
  return one(`${field.sql} ${op} ?`, [value])
}

function inList(
  field: ResolvedField,
  op: 'IN' | 'NOT IN',
  raw: unknown,
  one: (sql: string, bindings: ListValue[]) => Fragment,
): Fragment | undefined {
  const list = Array.isArray(raw) ? raw : isRecord(raw) ? Object.values(raw) : [raw]
  if (list.length > MAX_IN_MEMBERS) return undefined
  // Every member is bound on its own; NULL never matches IN, so it is left out.
  const members = list.map(scalar).filter((v): v is string | number | boolean => v != null)
  if (members.length === 0) return undefined
  return one(`${field.sql} ${op} (${members.map(() => '?').join(', ')})`, members)
}

function group(
  raw: Record<string, unknown>,
  source: CompiledSource,
  maxLength: number,
): Fragment | undefined {
  const members = entriesOf(raw.or)
    .map((m) => condition(m, source, maxLength))
    .filter((f): f is Fragment => f !== undefined)
  if (members.length === 0) return undefined
  return {
    sql: `(${members.map((m) => m.sql).join(' OR ')})`,
    bindings: members.flatMap((m) => m.bindings),
    fields: members.flatMap((m) => m.fields),
  }
}

/**
 * Reads a `filter` parameter into conditions to AND: each on a whitelisted field with a known
 * operator; `=`/`!=` with null become `IS NULL`/`IS NOT NULL`; an empty `IN` is dropped; `LIKE`
 * becomes `ILIKE` on PostgreSQL; a `LIKE` pattern longer than `maxLength` characters is refused
 * (422 `search_too_long`). Values are only ever bindings.
 */
export function readFilter(raw: unknown, source: CompiledSource, maxLength: number): Fragment[] {
  const out: Fragment[] = []
  for (const entry of entriesOf(raw)) {
    const fragment =
      isRecord(entry) && 'or' in entry
        ? group(entry, source, maxLength)
        : condition(entry, source, maxLength)
    if (fragment !== undefined) out.push(fragment)
  }
  return out
}
