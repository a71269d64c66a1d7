import type { Platform } from '@mikro-orm/core'

/**
 * A PostgreSQL array literal holding exactly `values`: every element in double quotes, `"` and
 * `\` escaped with a backslash (`['a"b', 'null']` → `{"a\"b","null"}`), a `null` element as
 * `NULL`. Quoting every element keeps what an unquoted one loses: `null` in any case (read back
 * as a NULL element), leading and trailing blanks (trimmed), and the backslash escapes that
 * `JSON.stringify` writes for control characters (`\n` read back as `n`).
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((value) =>
    value === null || value === undefined
      ? 'NULL'
      : `"${String(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`,
  )
  return `{${elements.join(',')}}`
}

/**
 * Makes the ORM write array properties (`type: 'string[]'`, MikroORM's `ArrayType`, and the
 * `$contains`/`$overlap` operators' values) as {@link arrayLiteral}s. MikroORM's PostgreSQL
 * platform quotes only the elements holding `"{},\` (with `JSON.stringify`), which stores the tag
 * `null` as a NULL and drops a value's outer blanks.
 */
export function quoteArrayElements(platform: Platform): void {
  platform.marshallArray = (values: string[]) => arrayLiteral(values)
}
