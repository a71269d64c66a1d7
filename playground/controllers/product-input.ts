import type { Product } from '../entities/product.js'

/** The fields a client may write; anything else in a body is ignored. */
export type ProductInput = Partial<
  Pick<Product, 'name' | 'sku' | 'price' | 'stock' | 'active' | 'tags' | 'notes' | 'category_id'>
>

/** Validation messages by field, as the 422 body `{errors: {field: [messages]}}` carries them. */
export type FieldErrors = Record<string, string[]>

/** What {@link readProductInput} made of a body. */
export interface ProductInputResult {
  readonly values: ProductInput
  readonly errors: FieldErrors
}

const REQUIRED = ['name', 'sku', 'price', 'stock'] as const
/** numeric(10,2) holds at most 99,999,999.99. */
const MAX_PRICE = 99_999_999.99
const MAX_INT = 2_147_483_647

/**
 * A form body carries strings only: read `"12.50"` as a number and `"true"`/`"1"`/`"on"` as a
 * boolean there. A JSON body must use the JSON types themselves (`"12.50"` is not a price).
 */
function fromForm(field: string, value: unknown): unknown {
  if (typeof value !== 'string') return value
  const numeric = /^\s*-?\d+(\.\d+)?\s*$/.test(value)
  switch (field) {
    case 'price':
    case 'stock':
      return numeric ? Number(value) : value
    case 'category_id':
      return value === '' ? null : numeric ? Number(value) : value
    case 'active':
      if (['true', '1', 'on'].includes(value)) return true
      if (['false', '0', 'off', ''].includes(value)) return false
      return value
    default:
      return value
  }
}

/**
 * Checks a product body. `partial` (PATCH) checks only the fields given; otherwise (POST, PUT)
 * `name`, `sku`, `price` and `stock` are required. The checks that need the database (a unique
 * `sku`, an existing `category_id`) are the controller's.
 */
export function readProductInput(
  body: unknown,
  options: { partial: boolean; form: boolean },
): ProductInputResult {
  const source =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {}
  const values: Record<string, unknown> = {}
  const errors: FieldErrors = {}
  const fail = (field: string, message: string): void => void (errors[field] ??= []).push(message)
  const get = (field: string): unknown =>
    options.form ? fromForm(field, source[field]) : source[field]
  const has = (field: string): boolean =>
    Object.hasOwn(source, field) && source[field] !== undefined

  if (!options.partial)
    for (const field of REQUIRED) if (!has(field)) fail(field, `The ${field} field is required.`)

  if (has('name')) {
    const name = get('name')
    if (typeof name !== 'string') fail('name', 'The name must be a string.')
    else if (name.trim() === '') fail('name', 'The name must not be empty.')
    else if (name.length > 200) fail('name', 'The name must be at most 200 characters.')
    else values.name = name
  }
  if (has('sku')) {
    const sku = get('sku')
    if (typeof sku !== 'string') fail('sku', 'The sku must be a string.')
    else if (sku.trim() === '') fail('sku', 'The sku must not be empty.')
    else if (sku.length > 64) fail('sku', 'The sku must be at most 64 characters.')
    else values.sku = sku
  }
  if (has('price')) {
    const price = get('price')
    if (typeof price !== 'number' || !Number.isFinite(price))
      fail('price', 'The price must be a number.')
    else if (price < 0) fail('price', 'The price must be at least 0.')
    else if (price > MAX_PRICE) fail('price', `The price must be at most ${MAX_PRICE}.`)
    else values.price = price
  }
  if (has('stock')) {
    const stock = get('stock')
    if (typeof stock !== 'number' || !Number.isInteger(stock))
      fail('stock', 'The stock must be an integer.')
    else if (stock < 0) fail('stock', 'The stock must be at least 0.')
    else if (stock > MAX_INT) fail('stock', `The stock must be at most ${MAX_INT}.`)
    else values.stock = stock
  }
  if (has('active')) {
    const active = get('active')
    if (typeof active !== 'boolean') fail('active', 'The active field must be true or false.')
    else values.active = active
  }
  if (has('tags')) {
    const tags = get('tags')
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))
      fail('tags', 'The tags must be an array of strings.')
    else values.tags = tags
  }
  if (has('notes')) {
    const notes = get('notes')
    if (notes !== null && typeof notes !== 'string')
      fail('notes', 'The notes must be a string or null.')
    else values.notes = notes
  }
  if (has('category_id')) {
    const id = get('category_id')
    if (id !== null && (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_INT))
      fail('category_id', 'The category_id must be the id of a category, or null.')
    else values.category_id = id
  }
  return { values: values as ProductInput, errors }
}
