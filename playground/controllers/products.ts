// The products API of PLAYGROUND.md, under `api/v1` (and the flat list of `api/v2`).
//
// Response shapes:
//   index (v1)  the list engine (playground/list/): {data, pagination, fields}
//   index (v2)  200 {data: [{id, name, sku, price}], total, page, per_page, last_page}
//   show        200 {data: <every column>}
//   store       201 {data: <every column>} with Location: /api/v1/products/<id>
//   update      200 {data: <every column>}   (PATCH: the fields given; PUT: name, sku, price and
//               stock required, the optional fields kept when absent)
//   destroy     204, no body
//   missing id  404 {error: "not_found"} (route binding; JSON when the client asks for JSON)
//   invalid     422 {errors: {<field>: [<message>, …]}}
import {
  ForeignKeyConstraintViolationException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { empty, HttpError, json, type Reply, type RequestContext } from 'fw'
import { Category } from '../entities/category.js'
import { Product } from '../entities/product.js'
import { pageCount, readPaging, type Paging } from './paging.js'
import { readProductInput, type FieldErrors, type ProductInput } from './product-input.js'

/** The list's default field set (PLAYGROUND.md). */
const LIST_FIELDS = ['id', 'name', 'sku', 'price'] as const
type ListRow = Pick<Product, (typeof LIST_FIELDS)[number]>

function database(ctx: RequestContext): {
  em: EntityManager
  toData: (p: Product) => Record<string, unknown>
} {
  const db = ctx.kernel.plugin('database')
  return { em: db.em(), toData: (p) => db.toData(p) }
}

function invalid(errors: FieldErrors): HttpError {
  return new HttpError(422, { errors })
}

/** One page of products in the default field set, ordered by id, and the total count. */
async function listPage(
  em: EntityManager,
  paging: Paging,
): Promise<{ rows: ListRow[]; total: number }> {
  const [found, total] = await em.findAndCount(
    Product,
    {},
    {
      fields: [...LIST_FIELDS],
      orderBy: { id: 'asc' },
      limit: paging.perPage,
      offset: paging.offset,
    },
  )
  return { rows: found.map(({ id, name, sku, price }) => ({ id, name, sku, price })), total }
}

/**
 * Reads and validates a product body, then checks what needs the database: the sku unique (other
 * than `current`'s own), the category existing. Throws the 422 with every message at once.
 */
async function validInput(
  ctx: RequestContext,
  em: EntityManager,
  current?: Product,
): Promise<ProductInput> {
  const form = (ctx.header('content-type') ?? '')
    .toLowerCase()
    .startsWith('application/x-www-form-urlencoded')
  const { values, errors } = readProductInput(await ctx.body(), {
    partial: ctx.method === 'PATCH',
    form,
  })
  if (values.sku !== undefined && values.sku !== current?.sku) {
    const taken = await em.count(
      Product,
      current ? { sku: values.sku, id: { $ne: current.id } } : { sku: values.sku },
    )
    if (taken > 0) (errors.sku ??= []).push('The sku has already been taken.')
  }
  if (values.category_id != null && (await em.count(Category, { id: values.category_id })) === 0) {
    ;(errors.category_id ??= []).push('The category_id must be the id of a category, or null.')
  }
  if (Object.keys(errors).length > 0) throw invalid(errors)
  return values
}

/**
 * Flushes, turning what the checks above could not see coming into a 422 too: a request that
 * inserted the same sku between our check and our insert, a category deleted meanwhile.
 */
async function flush(em: EntityManager): Promise<void> {
  try {
    await em.flush()
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw invalid({ sku: ['The sku has already been taken.'] })
    if (error instanceof ForeignKeyConstraintViolationException)
      throw invalid({ category_id: ['The category_id must be the id of a category, or null.'] })
    throw error
  }
}

/** The `v1.products.*` routes. `{product}` is bound to the `Product` entity by the database plugin. */
export class ProductsController {
  /** `GET /api/v1/products/{product}` */
  show(ctx: RequestContext): Reply {
    return json({ data: database(ctx).toData(ctx.models.product as Product) })
  }

  /** `POST /api/v1/products` */
  async store(ctx: RequestContext): Promise<Reply> {
    const { em, toData } = database(ctx)
    const values = await validInput(ctx, em)
    const product = em.create(Product, {
      name: values.name!,
      sku: values.sku!,
      price: values.price!,
      stock: values.stock!,
      active: values.active ?? true,
      tags: values.tags ?? [],
      notes: values.notes ?? null,
      category_id: values.category_id ?? null,
      created_at: new Date(),
    })
    await flush(em)
    const location = ctx.kernel.url('v1.products.show', { product: product.id })
    return json({ data: toData(product) }, 201).header('location', location)
  }

  /** `PUT|PATCH /api/v1/products/{product}` */
  async update(ctx: RequestContext): Promise<Reply> {
    const { em, toData } = database(ctx)
    const product = ctx.models.product as Product
    em.assign(product, await validInput(ctx, em, product))
    await flush(em)
    return json({ data: toData(product) })
  }

  /** `DELETE /api/v1/products/{product}` */
  async destroy(ctx: RequestContext): Promise<Reply> {
    const { em } = database(ctx)
    em.remove(ctx.models.product as Product)
    await em.flush()
    return empty()
  }

  /** `GET /api/v2/products?page=&per_page=`: the same page in the flat v2 shape. */
  async flatIndex(ctx: RequestContext): Promise<Reply> {
    const paging = readPaging(ctx.query)
    const { rows, total } = await listPage(database(ctx).em, paging)
    return json({
      data: rows,
      total,
      page: paging.page,
      per_page: paging.perPage,
      last_page: pageCount(total, paging.perPage),
    })
  }
}
