// The JSON Schemas of the playground's API: the same declaration validates request bodies (422
// with `{errors: {field: [messages]}}`; playground/README.md "The products API" states the rules)
// and goes into the API document.
import type { JsonSchema } from 'fw'
import { datatableRouteSchema, listRouteSchema } from 'fw/plugins/list'
import { productList } from '../list/products-source.js'

/** numeric(10,2) holds at most 99,999,999.99; an integer column at most 2^31 - 1. */
const MAX_PRICE = 99_999_999.99
const MAX_INT = 2_147_483_647

/** The writable fields of a product with their rules (playground/README.md "The products API"). */
const writable = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    pattern: '\\S',
    'x-pattern-message': 'must not be blank',
    example: 'Desk lamp',
  },
  sku: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    pattern: '\\S',
    'x-pattern-message': 'must not be blank',
    example: 'LAMP-01',
  },
  price: { type: 'number', minimum: 0, maximum: MAX_PRICE, example: 19.5 },
  stock: { type: 'integer', minimum: 0, maximum: MAX_INT, example: 3 },
  active: { type: 'boolean' },
  tags: { type: 'array', items: { type: 'string' } },
  notes: { type: 'string', nullable: true },
  category_id: { type: 'integer', minimum: 1, maximum: MAX_INT, nullable: true },
} as const

/** `POST /api/v1/products`: name, sku, price and stock required; other keys are ignored. */
export const productInput: JsonSchema = {
  type: 'object',
  required: ['name', 'sku', 'price', 'stock'],
  properties: writable,
}

/** `PATCH /api/v1/products/{id}`: any of the fields, each checked as on create. */
export const productPatch: JsonSchema = { type: 'object', properties: writable }

/** A product as the API answers it: every column. */
export const product = {
  type: 'object',
  required: ['id', 'name', 'sku', 'price', 'stock', 'active', 'tags', 'notes', 'category_id'],
  properties: {
    id: { type: 'integer', example: 1 },
    ...writable,
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema

/** The 422 body. */
export const invalid: JsonSchema = {
  type: 'object',
  properties: {
    errors: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      example: { price: ['The price must be >= 0.'] },
    },
  },
}

const notFound = { description: 'No product has this id.' }

/** The v2 page: `{data, total, page, per_page, last_page}`, rows of `id, name, sku, price`. */
export const flatPage: JsonSchema = {
  type: 'object',
  required: ['data', 'total', 'page', 'per_page', 'last_page'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'sku', 'price'],
        properties: {
          id: product.properties.id,
          name: writable.name,
          sku: writable.sku,
          price: writable.price,
        },
      },
    },
    total: { type: 'integer' },
    page: { type: 'integer' },
    per_page: { type: 'integer' },
    last_page: { type: 'integer' },
  },
}

/** `GET /api/v2/products`: `page` and `per_page` (1…500, default 20). */
export const flatPageQuery: JsonSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1, default: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 500, default: 20 },
  },
}

/** `GET /api/v1/me`. */
export const identity: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    username: { type: 'string' },
    email: { type: 'string', nullable: true },
    usertype: { type: 'integer' },
  },
}

/** The category's title, joined into the product lists (`categories.title`, `title` in a row). */
const joined = { title: { type: 'string', example: 'Garden' } } as const

/** The product resource's schemas, by action. */
export const productSchemas = {
  // The list engine's parameters and envelope, rows typed from the product's columns.
  index: listRouteSchema(productList, {
    record: product,
    joined,
    description: 'One page of products.',
  }),
  store: {
    body: productInput,
    responses: {
      201: { description: 'The created product.', schema: product },
      422: { description: 'A field is invalid.', schema: invalid },
    },
  },
  show: { responses: { 200: { description: 'The product.', schema: product }, 404: notFound } },
  update: {
    body: productPatch,
    responses: {
      200: { description: 'The updated product.', schema: product },
      404: notFound,
      422: { description: 'A field is invalid.', schema: invalid },
    },
  },
  destroy: { responses: { 204: { description: 'Deleted.' }, 404: notFound } },
} as const

/** `GET /api/v1/products/datatable`: the DataTables protocol over the same list. */
export const productDatatable = datatableRouteSchema(productList, { record: product, joined })
