// A value no PostgreSQL text can hold (a NUL character, U+0000) is the client's fault, found before
// the statement is sent. Sent, it fails in ways that look like an outage: PGlite breaks its wire
// message (SQLSTATE 08P01, a "connection exception") when MikroORM has inlined the value, and the
// database's own refusal quotes the statement. So every statement the plugin runs is checked here
// first: the ORM's through MikroORM's `onQuery` (called by the connection's `execute` with the
// statement and its parameters, for every statement; JSON values before MikroORM serialises them),
// the raw and prepared reads in bound-query.ts.

import type { HttpError } from 'fw'
import { databaseErrors } from './errors.js'

const NUL = '\u0000'
/** Deeper than any parameter an app binds; bounds the walk of a cyclic object. */
const MAX_DEPTH = 32
/**
 * SQLSTATEs of the database refusing a value for its characters (22021 invalid byte sequence,
 * 22P05 untranslatable character: `\u0000` in a `jsonb` value). What slips past the check (a NUL
 * escaped inside JSON text an app serialised itself) answers like what the check finds.
 */
const UNSTORABLE_STATES: ReadonlySet<string> = new Set(['22021', '22P05'])
const CODE = 'FW_ERR_DATABASE_INVALID_INPUT'

/** True when `value`, or a string (value or key) inside it as an array or plain object, holds a NUL. */
function holdsNul(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.indexOf(NUL) !== -1
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return false
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNul(item, depth + 1)) return true
    return false
  }
  // Only what becomes JSON text: a byte array is `bytea`, which holds any byte.
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return false
  for (const [key, item] of Object.entries(value))
    if (key.indexOf(NUL) !== -1 || holdsNul(item, depth + 1)) return true
  return false
}

/** The 400 a request gets for a value the database cannot hold; it never repeats the value. */
export function invalidInput(): HttpError {
  return databaseErrors.httpError(CODE)
}

/**
 * Throws the `FW_ERR_DATABASE_INVALID_INPUT` 400 when the statement or one of its bound values
 * holds a NUL: one `indexOf` per string, so every statement can afford it.
 */
export function refuseUnstorable(sql: string, values: readonly unknown[] | undefined): void {
  if (sql.indexOf(NUL) !== -1) throw invalidInput()
  if (values === undefined) return
  for (const value of values) if (holdsNul(value, 0)) throw invalidInput()
}

/**
 * Throws the `FW_ERR_DATABASE_INVALID_INPUT` 400 when one value (a JSON property's, before MikroORM
 * serialises it) holds a NUL at any depth.
 */
export function refuseUnstorableValue(value: unknown): void {
  if (holdsNul(value, 0)) throw invalidInput()
}

/**
 * True when `error` or an error in its `cause` chain is {@link refuseUnstorable}'s (MikroORM wraps
 * it in a `DriverException` that copies its `code`), or the database refusing a value's characters.
 */
export function isUnstorableInputError(error: unknown): boolean {
  const seen = new Set<unknown>()
  let current = error
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current)
    const code = (current as { code?: unknown }).code
    if (code === CODE || (typeof code === 'string' && UNSTORABLE_STATES.has(code))) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
