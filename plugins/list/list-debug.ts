// What a list request's statement was, for the debug envelope and the error a failing one raises:
// a type both the compiler and the errors use, so neither imports the other for it.

/** The SQL fragments a list ran, as the error envelope's `debug` shows them: no values. */
export interface ListDebug {
  /** The WHERE condition (`""` when there was none). */
  readonly filter: string
  /** The ORDER BY list. */
  readonly order: string
  /** The SELECT list. */
  readonly selectFields: string
}
