// The products API (playground/README.md "The products API"), under `api/v1` (and the flat list of
// `api/v2`): the resource routes with `{id}` bound to the Product entity, bodies validated by their
// schemas (../schemas.ts) before the handler runs.
import { createRequire } from 'node:module'
import type * as MikroCore from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { empty, HttpError, json, type Reply, type RequestContext } from 'fw'
import { datatableReply, listReply, pageCount, readPaging } from 'fw/plugins/list'
import { Category } from '../../entities/category.js'
import { Product, PRODUCT_WRITABLE } from '../../entities/product.js'
import { productList } from '../../list/products-source.js'

// Required, not imported, and only when a flush fails: see ../../entities/product.ts.
const mikroCore = (): typeof MikroCore =>
  createRequire(import.meta.url)('@mikro-orm/core') as typeof MikroCore

/** A client's body once the schema has checked its fields' types and ranges. */
type ProductInput = Partial<Pick<Product, (typeof PRODUCT_WRITABLE)[number]>>

/** The list's default field set (playground/README.md "The products API"). */
const LIST_FIELDS = ['id', 'name', 'sku', 'price'] as const

function database(ctx: RequestContext) {
  const db = ctx.kernel.plugin('database')
  return { em: db.em(), toData: (p: Product) => db.toData(p) }
}

/** The 422 messages of the checks that need the database (the CSV import reports the same). */
export const SKU_TAKEN = 'The sku has already been taken.'
export const UNKNOWN_CATEGORY = 'The category_id must be the id of a category, or null.'

function invalid(errors: Record<string, string[]>): HttpError {
  return new HttpError(422, { errors })
}

/**
 * The body's writable fields, then what needs the database: the sku unique (other than
 * `current`'s own), the category existing. Throws the 422 with every message at once.
 */
async function validInput(
  ctx: RequestContext,
  em: EntityManager,
  current?: Product,
): Promise<ProductInput> {
  const body = await ctx.body<Record<string, unknown>>()
  const values: Record<string, unknown> = {}
  for (const field of PRODUCT_WRITABLE) if (body[field] !== undefined) values[field] = body[field]
  const input = values as ProductInput
  const errors: Record<string, string[]> = {}
  if (input.sku !== undefined && input.sku !== current?.sku) {
    const taken = await em.count(
      Product,
      current ? { sku: input.sku, id: { $ne: current.id } } : { sku: input.sku },
    )
    if (taken > 0) errors.sku = [SKU_TAKEN]
  }
  if (input.category_id != null && (await em.count(Category, { id: input.category_id })) === 0)
    errors.category_id = [UNKNOWN_CATEGORY]
  if (Object.keys(errors).length > 0) throw invalid(errors)
  return input
}

/**
 * Flushes, turning what the checks above could not see coming into a 422 too: a request that
 * inserted the same sku between our check and our insert, a category deleted meanwhile.
 */
async function flush(em: EntityManager): Promise<void> {
  try {
    await em.flush()
  } catch (error) {
    const { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } =
      mikroCore()
    if (error instanceof UniqueConstraintViolationException) throw invalid({ sku: [SKU_TAKEN] })
    if (error instanceof ForeignKeyConstraintViolationException)
      throw invalid({ category_id: [UNKNOWN_CATEGORY] })
    throw error
  }
}

/**
 * The catalogue's products: listed (paged, sorted, filtered, searched), read, created, changed and
 * deleted. Writes take the application's API key or a signed-in editor.
 */
export class ProductsController {
  /**
   * Lists products. Pages, sorts, filters and searches through the list engine: `fields`,
   * `order`, `filter`, `search`, `page`, `per_page`.
   */
  index(ctx: RequestContext): Promise<Reply> {
    return listReply(ctx, productList)
  }

  /**
   * Lists products for DataTables. The DataTables server-side protocol (`draw`, `start`, `length`,
   * `search[value]`, `order[i][column]`, `columns[i][data]`) over the same data.
   */
  datatable(ctx: RequestContext): Promise<Reply> {
    return datatableReply(ctx, productList)
  }

  /** Shows one product. Every column of the record. */
  show(ctx: RequestContext): Reply {
    // A read: no EntityManager (the bound product is not registered with one until a request
    // needs it, see the database plugin's README, "Route binding").
    return json(ctx.kernel.plugin('database').toData(ctx.models.id as Product))
  }

  /**
   * Creates a product. Answers 201 with the created record and its `Location`; 422 with every
   * invalid field (the schema's rules, a taken sku, an unknown category).
   */
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
    const location = ctx.kernel.url('v1.products.show', { id: product.id })
    return json(toData(product), 201).header('location', location)
  }

  /** Updates a product. Changes only the fields given and answers the updated record. */
  async update(ctx: RequestContext): Promise<Reply> {
    const { em, toData } = database(ctx)
    const product = ctx.models.id as Product
    em.assign(product, await validInput(ctx, em, product))
    await flush(em)
    return json(toData(product))
  }

  /** Deletes a product. Answers 204 without a body. */
  async destroy(ctx: RequestContext): Promise<Reply> {
    const { em } = database(ctx)
    em.remove(ctx.models.id as Product)
    await em.flush()
    return empty()
  }

  /** Lists products, flat. The same page as v1 in the shape `{data, total, page, per_page, last_page}`. */
  async flatIndex(ctx: RequestContext): Promise<Reply> {
    const paging = readPaging(ctx.query.page, ctx.query.per_page)
    const [found, total] = await database(ctx).em.findAndCount(
      Product,
      {},
      {
        fields: [...LIST_FIELDS],
        orderBy: { id: 'asc' },
        limit: paging.perPage,
        offset: paging.offset,
      },
    )
    return json({
      data: found.map(({ id, name, sku, price }) => ({ id, name, sku, price })),
      total,
      page: paging.page,
      per_page: paging.perPage,
      last_page: pageCount(total, paging.perPage),
    })
  }
}
