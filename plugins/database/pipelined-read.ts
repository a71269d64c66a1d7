// A statement of the read pool with bound values or a name, as node-pg's pipeline mode runs it
// (see `createReadPool` in read-pool.ts), built for that one use instead of node-pg's `Query`.
//
// node-pg's `Query` serves every use (events per row, cursors, row modes, several results), and
// writes a statement as four messages of four writes. Per statement, this one holds only what its
// answer needs: its values are converted when it is built (a value node-pg cannot send fails it
// then, before anything is written); its messages go in one write: Parse on a connection that has
// not prepared it yet, Bind, Describe only until the connection has described it (its columns
// are then known: no row description is sent or parsed again), Execute and Sync; its rows are
// built from the statement's shape (row-shapes.ts). What the client asks of a query (`name`, `text`, `callback`, the
// `handle…` methods) it answers as node-pg's `Query` does; it is one to the client
// (`instanceof`), which takes nothing else into a pipelined connection. Guarded by
// pipelining.test.ts, read-pool.test.ts, row-shapes.test.ts and bound-values.test.ts.
import { createRequire } from 'node:module'
import {
  parsersOf,
  rowOf,
  shapeFor,
  type PgField,
  type Shape,
  type TypeParser,
} from './row-shapes.js'

/** Rows, or what failed: how a read pool statement ends. */
export type PipelinedDone = (
  error: Error | undefined,
  result: { rows: Record<string, unknown>[] } | undefined,
) => void

/** node-pg's connection, as far as a statement written on it relies on it. */
interface PgConnection {
  /** Names prepared on this connection (answered), and sent but not yet answered. */
  readonly parsedStatements: Record<string, string | undefined>
  readonly submittedNamedStatements: Record<string, string | undefined>
  readonly stream: { readonly writable: boolean; write(chunk: Buffer): boolean }
}

interface TypeRegistry {
  getTypeParser(oid: number, format: string): TypeParser
}

/** node-pg's own conversion of a bound value to what it sends: null, bytes, or text. */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as {
  prepareValue: (value: unknown) => null | Buffer | string
}

/** Describe (the unnamed portal): asks for the columns of the rows. */
const DESCRIBE = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0])
/** Execute (the unnamed portal, no row limit), then Sync: the same after every Bind. */
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4])

/** Parse messages of named statements, made once (a name is its text's hash, see sql.ts). */
const parses = new Map<string, Buffer>()
const MAX_PARSES = 1_000

/**
 * The columns of each named statement as a connection described them: on that connection the
 * statement is not described again (PostgreSQL refuses to run a prepared statement whose columns
 * changed, 0A000). Its type parsers are still looked up at every run.
 */
const described = new WeakMap<object, Map<string, readonly PgField[]>>()

/** A Parse message: `name` (empty: the unnamed statement) for `text`, no parameter types given. */
function parseMessage(name: string, text: string): Buffer {
  const nameLength = Buffer.byteLength(name)
  const textLength = Buffer.byteLength(text)
  const message = Buffer.allocUnsafe(1 + 4 + nameLength + 1 + textLength + 1 + 2)
  message[0] = 0x50
  message.writeInt32BE(message.length - 1, 1)
  let at = 5 + message.write(name, 5)
  message[at++] = 0
  at += message.write(text, at)
  message[at++] = 0
  message.writeInt16BE(0, at)
  return message
}

function namedParse(name: string, text: string): Buffer {
  let message = parses.get(name)
  if (message === undefined) {
    if (parses.size >= MAX_PARSES) parses.clear()
    message = parseMessage(name, text)
    parses.set(name, message)
  }
  return message
}

/** Bound values as node-pg sends them (null, bytes or text), and the size of their Bind message. */
interface BindValues {
  readonly values: readonly (null | Buffer | string)[]
  readonly lengths: readonly number[]
  readonly size: number
}

/** Converts the values (node-pg's `prepareValue`, which throws for what it cannot send). */
function bindValues(name: string, values: readonly unknown[]): BindValues {
  const count = values.length
  const prepared = new Array<null | Buffer | string>(count)
  const lengths = new Array<number>(count)
  let size = 1 + 4 + 1 + Buffer.byteLength(name) + 1 + 2 + 2 * count + 2 + 2 + 2
  for (let i = 0; i < count; i++) {
    const value = prepareValue(values[i])
    prepared[i] = value
    const length =
      value === null ? 0 : typeof value === 'string' ? Buffer.byteLength(value) : value.length
    lengths[i] = length
    size += 4 + length
  }
  return { values: prepared, lengths, size }
}

/** Writes the Bind message of `name` with `bind`'s values into `message` at `at`; where it ends. */
function writeBind(message: Buffer, at: number, name: string, bind: BindValues): number {
  const { values, lengths } = bind
  const count = values.length
  message[at] = 0x42
  message.writeInt32BE(bind.size - 1, at + 1)
  message[at + 5] = 0 // the unnamed portal
  at += 6 + message.write(name, at + 6)
  message[at++] = 0
  at = message.writeInt16BE(count, at)
  for (let i = 0; i < count; i++) at = message.writeInt16BE(Buffer.isBuffer(values[i]) ? 1 : 0, at)
  at = message.writeInt16BE(count, at)
  for (let i = 0; i < count; i++) {
    const value = values[i]!
    if (value === null) {
      at = message.writeInt32BE(-1, at)
      continue
    }
    at = message.writeInt32BE(lengths[i]!, at)
    at += typeof value === 'string' ? message.write(value, at) : value.copy(message, at)
  }
  at = message.writeInt16BE(1, at) // one result format for every column:
  return message.writeInt16BE(0, at) // text
}

/** A statement of the read pool: see the top of this file and {@link pipelinedReads}. */
class PipelinedRead {
  readonly text: string
  readonly name: string | undefined
  /** What the client hands the type registry to (`query._result._types`): itself. */
  readonly _result: this
  _types: TypeRegistry | undefined = undefined
  callback: PipelinedDone | undefined = undefined
  readonly #bind: BindValues
  /** Where it was written: its columns are kept for that connection once described. */
  #connection: PgConnection | undefined = undefined
  #fields: readonly PgField[] = []
  #parsers: TypeParser[] = []
  #shape: Shape | undefined = undefined
  readonly #rows: Record<string, unknown>[] = []
  #failed: Error | undefined = undefined

  constructor(text: string, name: string | undefined, values: readonly unknown[]) {
    this.text = text
    this.name = name
    this._result = this
    this.#bind = bindValues(name ?? '', values)
  }

  /** Parse (unless the connection has it), Bind, Describe (unless it has the columns), Execute, Sync: one write. */
  submit(connection: PgConnection): Error | null {
    const { name, text } = this
    const { stream } = connection
    if (!stream.writable) return null
    let parse: Buffer | undefined
    let columns: readonly PgField[] | undefined
    if (name === undefined) parse = parseMessage('', text)
    else {
      const previous =
        connection.parsedStatements[name] ?? connection.submittedNamedStatements[name]
      if (previous === undefined) {
        parse = namedParse(name, text)
        connection.submittedNamedStatements[name] = text
      } else if (previous !== text)
        return new Error(
          `Prepared statements must be unique - '${name}' was used for a different statement`,
        )
      else columns = described.get(connection)?.get(name)
    }
    this.#connection = connection
    const bind = this.#bind
    const size =
      (parse?.length ?? 0) +
      bind.size +
      (columns === undefined ? DESCRIBE.length : 0) +
      EXECUTE_SYNC.length
    const message = Buffer.allocUnsafe(size)
    let at = parse === undefined ? 0 : parse.copy(message, 0)
    at = writeBind(message, at, name ?? '', bind)
    if (columns === undefined) at += DESCRIBE.copy(message, at)
    else this.#describe(columns)
    EXECUTE_SYNC.copy(message, at)
    stream.write(message)
    return null
  }

  handleRowDescription(message: { fields: readonly PgField[] }): void {
    const { fields } = message
    const { name } = this
    const connection = this.#connection
    if (name !== undefined && connection !== undefined) {
      let columns = described.get(connection)
      if (columns === undefined) described.set(connection, (columns = new Map()))
      columns.set(name, fields)
    }
    this.#describe(fields)
  }

  #describe(fields: readonly PgField[]): void {
    this.#fields = fields
    this.#parsers = parsersOf(this._types!, fields)
    this.#shape = shapeFor(this.text, fields)
  }

  handleDataRow(message: { fields: readonly unknown[] }): void {
    if (this.#failed !== undefined) return
    try {
      this.#rows.push(rowOf(this.#shape!, this.#fields, this.#parsers, message.fields))
    } catch (error) {
      // A type parser that throws fails this statement alone, once its answer is complete.
      this.#failed = error as Error
    }
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handleError(error: Error): void {
    const failed = this.#failed ?? error
    this.#failed = undefined
    this.callback?.(failed, undefined)
  }

  handleReadyForQuery(): void {
    if (this.#failed !== undefined) return this.handleError(this.#failed)
    this.callback?.(undefined, { rows: this.#rows })
  }
}

/**
 * The class of the read pool's statements for node-pg's `Query` class `Query` (undefined when this
 * node-pg is not built as expected, or another node-pg's `Query` took the class first: the pool
 * then uses `Query` itself). `text` with `$n` placeholders, prepared once per connection under
 * `name` when it has one.
 */
export function pipelinedReads(
  Query: abstract new (...args: never[]) => object,
): typeof PipelinedRead | undefined {
  const proto = Query.prototype as Partial<Record<string, unknown>>
  if (typeof proto.submit !== 'function' || typeof proto.handleReadyForQuery !== 'function')
    return undefined
  const parent: unknown = Object.getPrototypeOf(PipelinedRead.prototype)
  if (parent === Query.prototype) return PipelinedRead
  if (parent !== Object.prototype) return undefined
  // node-pg's client takes only its own queries into a pipelined connection.
  Object.setPrototypeOf(PipelinedRead.prototype, Query.prototype)
  return PipelinedRead
}
