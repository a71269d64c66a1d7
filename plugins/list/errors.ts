import { definePluginErrors, type CodesOf, type ErrorCode } from 'fw'
import type { ListDebug } from './list-debug.js'

/** The `error` of a failed list in production: the database's own text only in development. */
export const QUERY_FAILED = 'Database query failed'

/** The list engine's error codes. */
export const listErrors = definePluginErrors('list', {
  FW_ERR_LIST_SOURCE_INVALID: {
    when: 'A list source declaration is wrong: a field, join, table or entity (checked where it is declared, and against the ORM metadata on first use).',
    fix: 'The message names the source and the mistake; fix the declaration.',
    message: ({ source, problem }: { source: string; problem: string }) =>
      `List source '${source}': ${problem}`,
  },
  FW_ERR_LIST_QUERY_FAILED: {
    when: "The database refused or failed a list statement. Carried by `ListQueryError`: status 400 when the database rejected a value the caller sent (SQLSTATE class 22), else 500; the database's text only in development.",
    fix: "A 400 is the caller's; a 500 is logged with the statement fragments (never values).",
    message: ({ detail }: { detail: string }) => `${QUERY_FAILED}: ${detail}`,
  },
  FW_ERR_LIST_SEARCH_TOO_LONG: {
    when: 'A search term (`search`, DataTables `search[value]` or a column search) or a `LIKE`/`ILIKE` filter value is longer than `list.max_search_length` characters (default 200). Answered 422 `{"error":"search_too_long", message, max_length}` before any statement.',
    fix: "The client's: send a shorter term. An app that needs longer ones raises `list.max_search_length`.",
    status: 422,
    error: 'search_too_long',
    message: ({ max }: { max: number }) => `A search term may hold at most ${max} characters.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof listErrors> {}
}

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
  readonly code: ErrorCode = 'FW_ERR_LIST_QUERY_FAILED'
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
    super(listErrors.message('FW_ERR_LIST_QUERY_FAILED', { detail: databaseMessage }), { cause })
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
