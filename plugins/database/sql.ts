import { createHash } from 'node:crypto'

// The `sql` tagged template (README.md "Fast reads: sql"): a statement whose values are always
// bound parameters, never SQL text. Building one touches no database and loads no ORM.

declare const rowType: unique symbol

/**
 * A parameterised statement made by {@link sql}: `$1`, `$2`… in `text`, the values bound in
 * order. `Row` types the rows it answers (unchecked: the SELECT list is the app's to match).
 */
export interface SqlStatement<Row extends object = Record<string, unknown>> {
  /** The statement with `$n` placeholders, as sent. */
  readonly text: string
  /** The same with `?` placeholders, as `query.executed` events show it. */
  readonly sql: string
  readonly values: readonly unknown[]
  /**
   * The name it is prepared under on each PostgreSQL connection, when its text is the same at
   * every call (a template without nested fragments); undefined: parsed each time, still bound.
   */
  readonly name: string | undefined
  /** Phantom: the row type (never set). */
  readonly [rowType]?: Row
}

/** A piece of SQL text that goes in as text: an identifier (see {@link sql.identifier}). */
class SqlText {
  constructor(readonly text: string) {}
}

interface Compiled {
  readonly text: string
  readonly sql: string
  readonly name: string
}

/** What a template without fragments compiles to, once per call site (the strings array is the same object each time). */
const compiled = new WeakMap<TemplateStringsArray, Compiled>()

function isPiece(value: unknown): value is SqlStatement | SqlText {
  return value instanceof SqlText || value instanceof Statement
}

class Statement<Row extends object> implements SqlStatement<Row> {
  declare readonly [rowType]?: Row
  constructor(
    readonly text: string,
    readonly sql: string,
    readonly values: readonly unknown[],
    readonly name: string | undefined,
  ) {}
}

/** Renumbers a fragment's `$n` placeholders after `offset` values. */
function shift(text: string, offset: number): string {
  return offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
}

function build(strings: readonly string[], values: readonly unknown[]): Statement<object> {
  let text = strings[0]!
  let question = strings[0]!
  const bound: unknown[] = []
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (value instanceof SqlText) {
      text += value.text
      question += value.text
    } else if (value instanceof Statement) {
      text += shift(value.text, bound.length)
      question += value.sql
      bound.push(...value.values)
    } else {
      bound.push(value)
      text += `$${bound.length}`
      question += '?'
    }
    text += strings[i + 1]!
    question += strings[i + 1]!
  }
  return new Statement(text, question, bound, undefined)
}

/** `fw_` and 16 hex digits of the text's SHA-256: the same text shares one prepared statement. */
function nameOf(text: string): string {
  return `fw_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`
}

/**
 * Builds a parameterised statement: every `${value}` becomes a bound parameter (`$1`, `$2`…),
 * never SQL text, so a value cannot change the statement. A nested `sql` fragment is spliced in
 * with its own values; {@link sql.identifier} splices a quoted name; {@link sql.join} a list.
 * Run it with the database plugin's `query(statement)`, or use its `sql` tag, which builds and
 * runs in one step. The generic types the rows (the SELECT list is yours to match).
 *
 * @example
 * const byId = (id: number) => sql<{ id: number; name: string }>`select id, name from products where id = ${id}`
 * const [product] = await kernel.plugin('database').query(byId(7))
 */
export function sql<Row extends object = Record<string, unknown>>(
  strings: TemplateStringsArray,
  ...values: unknown[]
): SqlStatement<Row> {
  if (values.some(isPiece)) return build(strings, values) as Statement<Row>
  let done = compiled.get(strings)
  if (done === undefined) {
    const statement = build(strings, values)
    done = { text: statement.text, sql: statement.sql, name: nameOf(statement.text) }
    compiled.set(strings, done)
  }
  return new Statement<Row>(done.text, done.sql, values, done.name)
}

/**
 * A quoted SQL identifier (`"order"`, `"public"."products"` for several parts), for a name known
 * only at run time; the name is quoted, never bound. Only for names the app chose (a whitelist),
 * never a value from a request.
 *
 * @example
 * sql`select count(*) from ${sql.identifier('products')}`
 */
sql.identifier = function identifier(...parts: string[]): SqlText {
  return new SqlText(parts.map((part) => `"${part.replace(/"/g, '""')}"`).join('.'))
}

/**
 * A list joined by `separator` (default `, `): each item a bound value, or an `sql` fragment
 * spliced in. For `in (…)` lists and multi-row `values`.
 *
 * @example
 * sql`select * from products where id in (${sql.join([1, 2, 3])})`
 * sql`insert into tags (name, rank) values ${sql.join(rows.map((r) => sql`(${r.name}, ${r.rank})`))}`
 */
sql.join = function join(items: readonly unknown[], separator = ', '): SqlStatement {
  const strings = ['', ...items.slice(1).map(() => separator), '']
  if (items.length === 0) strings.splice(1)
  return build(strings, items) as Statement<Record<string, unknown>>
}
