// What the list engine refuses before it builds a statement (README.md "Refused input"): a NUL
// character anywhere in the parameters it reads, and a search term or `LIKE` pattern longer than
// `list.max_search_length`.
import { currentContext, type FwConfig } from 'fw'
import { databaseErrors } from 'fw/plugins/database'
import { listErrors } from './errors.js'

/** `list.max_search_length`'s default, in characters. */
export const DEFAULT_MAX_SEARCH_LENGTH = 200
/** Deeper than any query string `qs` makes (it stops at 5); bounds the walk. */
const MAX_DEPTH = 8

/**
 * The longest search term the current request's app allows: config `list.max_search_length`,
 * or {@link DEFAULT_MAX_SEARCH_LENGTH} outside a request or without the list plugin's config.
 */
export function currentSearchLimit(): number {
  const config = currentContext()?.kernel.config as Partial<FwConfig> | undefined
  return config?.list?.max_search_length ?? DEFAULT_MAX_SEARCH_LENGTH
}

function holdsNul(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return false
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value)
  for (const [key, item] of entries)
    if ((typeof key === 'string' && key.includes('\u0000')) || holdsNul(item, depth + 1))
      return true
  return false
}

/**
 * Throws the database plugin's 400 `invalid_input` (`FW_ERR_DATABASE_INVALID_INPUT`) when one of
 * `values` (a string, or a key or string inside an array or object) holds a NUL, which no
 * PostgreSQL text can hold: refused before any statement, never stripped (stripping would search
 * for something the caller did not send). Guarded by test/plugins/list/refused-input.test.ts.
 */
export function refuseNul(...values: readonly unknown[]): void {
  for (const value of values)
    if (holdsNul(value, 0)) throw databaseErrors.httpError('FW_ERR_DATABASE_INVALID_INPUT')
}

/**
 * Throws the 422 `search_too_long` (`FW_ERR_LIST_SEARCH_TOO_LONG`) when `term` has more than `max`
 * characters (code points): matching a pattern costs the database, on every row, in proportion
 * to the pattern's length, so an unbounded term lets one public request hold the database.
 * Guarded by test/plugins/list/refused-input.test.ts.
 */
export function refuseLongTerm(term: string, max: number): void {
  if (term.length <= max) return
  let count = 0
  for (const _ of term) if (++count > max) break
  if (count > max)
    throw listErrors.httpError(
      'FW_ERR_LIST_SEARCH_TOO_LONG',
      { max },
      { body: { max_length: max } },
    )
}
