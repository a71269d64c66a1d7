import type { ListDebug } from './compile.js'

/** The error codes of the list engine (mirrored in plugins/list/README.md). */
export const LIST_ERROR_CODES = {
  FW_ERR_LIST_SOURCE_INVALID: 'A list source declaration is wrong (a field, join or entity).',
  FW_ERR_LIST_QUERY_FAILED: 'The database refused or failed a list statement.',
} as const

/** The `error` of a failed list in production: the database's own text only in development. */
export const QUERY_FAILED = 'Database query failed'

/** SQLSTATE class 22 ("data exception"): the database could not use a value the caller sent. */
function isDataException(sqlState: string | undefined): boolean {
  return sqlState !== undefined && sqlState.startsWith('22')
}

/**
 * A list statement failed. `message` is `Database query failed: <database message>`; `status` is
 * 400 when the database rejected a value (SQLSTATE class 22), 500 otherwise. `debug` holds the
 * SQL fragments that ran, with `?` placeholders and never a value.
 */
export class ListQueryError extends Error {
  readonly code = 'FW_ERR_LIST_QUERY_FAILED'
  readonly status: 400 | 500
  /** The SQLSTATE the database answered with, when it answered. */
  readonly sqlState: string | undefined
  /** The `fields` of the envelope: what the request asked for. */
  readonly fields: readonly string[]
  readonly debug: ListDebug

  constructor(
    databaseMessage: string,
    sqlState: string | undefined,
    fields: readonly string[],
    debug: ListDebug,
    cause: unknown,
  ) {
    super(`${QUERY_FAILED}: ${databaseMessage}`, { cause })
    this.name = 'ListQueryError'
    this.sqlState = sqlState
    this.status = isDataException(sqlState) ? 400 : 500
    this.fields = fields
    this.debug = debug
  }
}

/** True for a {@link ListQueryError}. */
export function isListQueryError(error: unknown): error is ListQueryError {
  return error instanceof ListQueryError
}
