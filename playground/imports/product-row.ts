// A CSV line of the product import as the products API would take it: the same JSON Schema
// (../api/schemas.ts `productInput`, checked with the kernel's coercing validator, as a form's
// string fields are), then the same database rules (a unique sku, an existing category).
import { checkMultipartBody, isHttpError } from 'fw'
import { productInput } from '../api/schemas.js'
import { PRODUCT_WRITABLE } from '../entities/product.js'

/** The columns an import's header may name: a product's writable columns. */
export const IMPORT_COLUMNS: readonly string[] = PRODUCT_WRITABLE
/** The columns every import's header must name (the API's required fields). */
export const REQUIRED_COLUMNS = productInput.required as readonly string[]
/** How a `tags` cell lists its tags: `lamp|desk`. */
export const TAG_SEPARATOR = '|'

/** A product ready to insert. */
export interface ProductValues {
  readonly name: string
  readonly sku: string
  readonly price: number
  readonly stock: number
  readonly active: boolean
  readonly tags: string[]
  readonly notes: string | null
  readonly category_id: number | null
}

/** One problem of one line: its column (`''` for the line itself) and the API's sentence. */
export interface RowProblem {
  readonly column: string
  readonly message: string
}

/**
 * What the header names, or why it cannot be imported: every required column, no unknown or
 * repeated one. Answers the problem as a sentence, or undefined.
 */
export function headerProblem(header: readonly string[]): string | undefined {
  const names = header.map((h) => h.trim())
  const unknown = names.filter((n) => !IMPORT_COLUMNS.includes(n))
  if (unknown.length > 0)
    return `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}: the header names columns among ${IMPORT_COLUMNS.join(', ')}.`
  const repeated = names.filter((n, i) => names.indexOf(n) !== i)
  if (repeated.length > 0) return `The column '${repeated[0]}' is named twice in the header.`
  const missing = REQUIRED_COLUMNS.filter((c) => !names.includes(c))
  if (missing.length > 0)
    return `The header must name ${REQUIRED_COLUMNS.join(', ')}; it lacks ${missing.join(', ')}.`
  return undefined
}

/**
 * The cells of a line as the API's body: an empty cell is a field not given (the API's default,
 * or "is required"), `tags` is split on {@link TAG_SEPARATOR}.
 */
function fieldsOf(header: readonly string[], cells: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  header.forEach((column, i) => {
    const cell = cells[i] ?? ''
    if (cell === '') return
    fields[column] =
      column === 'tags'
        ? cell
            .split(TAG_SEPARATOR)
            .map((t) => t.trim())
            .filter((t) => t !== '')
        : cell
  })
  return fields
}

/**
 * Checks a line against the API's schema. Answers the product (the strings turned into the types
 * the schema asked for: the validator accepted them as such) or every problem, by column.
 */
export function productOf(
  header: readonly string[],
  cells: readonly string[],
): { ok: true; values: ProductValues } | { ok: false; problems: RowProblem[] } {
  if (cells.length !== header.length)
    return {
      ok: false,
      problems: [
        {
          column: '',
          message: `The line has ${cells.length} field${cells.length === 1 ? '' : 's'}; the header has ${header.length}.`,
        },
      ],
    }
  // PostgreSQL's text holds no NUL: refused here, per line, rather than failing a whole batch.
  const nul = header.find((_, i) => cells[i]!.includes('\u0000'))
  if (nul !== undefined)
    return { ok: false, problems: [{ column: nul, message: `The ${nul} must not contain NUL.` }] }
  const fields = fieldsOf(header, cells)
  try {
    checkMultipartBody(productInput, fields, [])
  } catch (error) {
    if (!isHttpError(error)) throw error
    const errors = (error.body.errors ?? {}) as Record<string, string[]>
    const problems = Object.entries(errors).flatMap(([column, messages]) =>
      messages.map((message) => ({ column, message })),
    )
    return { ok: false, problems }
  }
  const number = (v: unknown) => (v === undefined ? null : Number(v))
  return {
    ok: true,
    values: {
      name: String(fields.name),
      sku: String(fields.sku),
      price: Number(fields.price),
      stock: Number(fields.stock),
      active: fields.active === undefined ? true : fields.active === 'true',
      tags: (fields.tags as string[] | undefined) ?? [],
      notes: fields.notes === undefined ? null : String(fields.notes),
      category_id: number(fields.category_id),
    },
  }
}
