/**
 * Rows of one statement built from one template, for what fw runs on PostgreSQL (the read pool's
 * statements and MikroORM's, see orm-statements.ts).
 *
 * node-pg (8.2x) builds each result's rows from a prototype-less object holding the columns'
 * names: the names are stored into `Object.create(null)` (a dictionary-mode object) and the
 * template is then spread into a plain object, once per statement, before the first row. Spreading
 * a dictionary-mode object is V8's slow path: measured on products by id (ten columns) it was
 * 15% of the server's busy time, about 15 µs a statement, more than the rest of fw's read path.
 * A statement's columns rarely change, so the read pool keeps each statement's template (its
 * columns' names, in order), built once with each name as an own data property (a column named
 * `__proto__` stays a column, as in node-pg), and each row is a copy of it with the values filled
 * in: every row of a statement shares V8's hidden class, so reading and serialising them stays on
 * the fast paths too. The columns are compared with the kept ones on every run (a migration under
 * a running server may change what `select *` returns).
 *
 * What a row holds is node-pg's: the same columns in the same order (a name given twice keeps its
 * first place and its last value), the values through the same type parsers, looked up for each
 * statement as node-pg does (a parser set at run time applies to the next statement).
 */

/** A column of a row description, as node-pg hands it to its `Result`. */
export interface PgField {
  readonly name: string
  readonly dataTypeID: number
  readonly format?: string | undefined
}

/** A type parser: the column's text (or bytes) to its JavaScript value. */
export type TypeParser = (value: unknown) => unknown

/** node-pg's `Result` (pg/lib/result.js), as far as a subclass of it relies on. */
interface PgResult {
  fields: readonly PgField[]
  _parsers: TypeParser[] | undefined
  _types: { getTypeParser(oid: number, format: string): TypeParser } | undefined
  addFields(fields: readonly PgField[]): void
  parseRow(values: readonly unknown[]): Record<string, unknown>
}

type PgResultClass = new (rowMode: unknown, types: unknown) => PgResult

/** node-pg's `Query`, whose results the subclass makes shaped. */
interface PgQueryShape {
  _result: PgResult
  _results: PgResult | PgResult[]
}

/** At most this many statements' shapes are kept; past it the cache starts over (they are few). */
const MAX_SHAPES = 1_000
/** A statement text longer than this is not a key of the cache (at most 4 MB of keys in all). */
const MAX_KEY_LENGTH = 4_096

/**
 * A subclass of node-pg's `Query` whose rows are built from a template per statement, or `Query`
 * itself when this node-pg is not built as expected (its rows are then node-pg's own).
 */
export function shapedQueries<Q extends new (text: string, values: readonly unknown[]) => object>(
  Query: Q,
): Q {
  let probe: Partial<PgQueryShape>
  try {
    probe = new Query('', []) as Partial<PgQueryShape>
  } catch {
    return Query
  }
  const result = probe._result
  if (
    result === undefined ||
    probe._results !== result ||
    typeof result.addFields !== 'function' ||
    typeof result.parseRow !== 'function'
  )
    return Query
  const Result = result.constructor as PgResultClass

  class ShapedResult extends Result {
    /** The statement's text: what its shape is kept under. */
    readonly #statement: string
    #shape: Shape | undefined

    constructor(statement: string) {
      super(undefined, undefined)
      this.#statement = statement
    }

    override addFields(fields: readonly PgField[]): void {
      const types = this._types
      // Without the client's type registry (never so through a pool), node-pg's own way.
      if (types === undefined) {
        this.#shape = undefined
        super.addFields(fields)
        return
      }
      this.fields = fields
      this._parsers = parsersOf(types, fields)
      this.#shape = shapeFor(this.#statement, fields)
    }

    override parseRow(values: readonly unknown[]): Record<string, unknown> {
      const shape = this.#shape
      if (shape === undefined) return super.parseRow(values)
      return rowOf(shape, this.fields, this._parsers!, values)
    }
  }

  // The subclass only swaps the result its constructor made for a shaped one.
  const Shaped = class extends (Query as new (text: string, values: readonly unknown[]) => object) {
    constructor(text: string, values: readonly unknown[]) {
      super(text, values)
      const self = this as unknown as PgQueryShape
      const shaped = new ShapedResult(text)
      self._result = shaped
      self._results = shaped
    }
  }
  return Shaped as unknown as Q
}

/** The shapes of the statements run lately, under their texts (see {@link shapeFor}). */
const shapes = new Map<string, Shape>()

/** Each column's type parser, looked up as node-pg does (a parser set at run time applies now). */
export function parsersOf(
  types: { getTypeParser(oid: number, format: string): TypeParser },
  fields: readonly PgField[],
): TypeParser[] {
  const parsers = new Array<TypeParser>(fields.length)
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!
    parsers[i] = types.getTypeParser(field.dataTypeID, field.format || 'text')
  }
  return parsers
}

/**
 * The shape of `statement`'s rows: the one from its last run, unless its columns changed since (a
 * migration under a running server, `select *`); the text's hash is kept by the string itself. A
 * long text (a batch insert `returning`, whose length grows with its rows) is not kept: its shape
 * goes under its columns' names instead, so the cache stays small.
 */
export function shapeFor(statement: string, fields: readonly PgField[]): Shape {
  const key = statement.length <= MAX_KEY_LENGTH ? statement : columnsKey(fields)
  let shape = shapes.get(key)
  if (shape === undefined || !sameColumns(shape.names, fields)) {
    if (shapes.size >= MAX_SHAPES) shapes.clear()
    shape = shapeOf(fields)
    shapes.set(key, shape)
  }
  return shape
}

/** A row: a copy of the shape's template with each column's value, parsed (null stays null). */
export function rowOf(
  shape: Shape,
  fields: readonly PgField[],
  parsers: readonly TypeParser[],
  values: readonly unknown[],
): Record<string, unknown> {
  const row: Record<string, unknown> = { ...shape.template }
  const { names } = shape
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    row[names[i]!] =
      value === null
        ? null
        : parsers[i]!(fields[i]!.format === 'binary' ? Buffer.from(value as Uint8Array) : value)
  }
  return row
}

/**
 * The columns of a statement's rows: their names as property keys (the strings V8 keeps once, so
 * storing a value under one is a lookup, not a hashing of the name), and the template each row is
 * copied from.
 */
export interface Shape {
  readonly names: readonly string[]
  readonly template: Readonly<Record<string, null>>
}

/** The columns' names, in order, as one key: a name cannot hold a NUL, nor start with one. */
function columnsKey(fields: readonly PgField[]): string {
  let key = '\0'
  for (const { name } of fields) key += `${name}\0`
  return key
}

function sameColumns(names: readonly string[], fields: readonly PgField[]): boolean {
  if (names.length !== fields.length) return false
  for (let i = 0; i < names.length; i++) if (names[i] !== fields[i]!.name) return false
  return true
}

function shapeOf(fields: readonly PgField[]): Shape {
  const template = templateOf(fields)
  const keys = Object.keys(template)
  // A name given twice is one key: each column gets the key equal to its name.
  const names = fields.map(({ name }) => keys.find((key) => key === name)!)
  return { names, template }
}

/** An object with each column as an own, enumerable, writable property set to null, in order. */
function templateOf(fields: readonly PgField[]): Readonly<Record<string, null>> {
  const template: Record<string, null> = {}
  for (const { name } of fields)
    Object.defineProperty(template, name, {
      value: null,
      writable: true,
      enumerable: true,
      configurable: true,
    })
  return template
}
