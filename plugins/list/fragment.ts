import { refuseNul } from './input-limits.js'
import type { CompiledSource, ListValue, ResolvedField } from './source.js'

/**
 * A piece of SQL the engine built: quoted whitelisted identifiers, fixed keywords and `?`
 * placeholders, never a value. The values travel beside it, as bindings.
 */
export interface Fragment {
  readonly sql: string
  readonly bindings: readonly ListValue[]
  /** The fields it uses (the compiler adds the joins they need). */
  readonly fields: readonly ResolvedField[]
}

/**
 * The column as `LIKE` sees it: on PostgreSQL cast to text, so that a pattern applies to numbers,
 * dates and JSON too instead of failing with "operator does not exist" (a cast of a text column
 * is a no-op, and indexes on it still apply).
 */
export function likeOperand(field: ResolvedField, source: CompiledSource): string {
  return source.postgres ? `${field.sql}::text` : field.sql
}

/** `LIKE` as the database should run it: `ILIKE` on PostgreSQL. */
export function likeOperator(source: CompiledSource, op: 'LIKE' | 'ILIKE'): string {
  return source.postgres ? 'ILIKE' : op === 'ILIKE' ? 'LIKE' : op
}

/**
 * A search term as a literal `LIKE` pattern: `%`, `_` and `\` escaped, wrapped in `%…%`. Run with
 * {@link LIKE_ESCAPE}, so that the escape character is the statement's, not a setting's.
 */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The `ESCAPE` clause of every pattern {@link containsPattern} builds. */
export const LIKE_ESCAPE = "ESCAPE '\\'"

/**
 * Parses a JSON parameter, or `undefined` when it is not JSON. A NUL the JSON text spelled as
 * `\u0000` is refused as one sent raw is (400 `invalid_input`).
 */
export function parseJson(value: string): unknown {
  let parsed: unknown
  try {
    parsed = JSON.parse(value) as unknown
  } catch {
    return undefined
  }
  refuseNul(parsed)
  return parsed
}
