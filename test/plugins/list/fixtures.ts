// A small shop for the list engine's suites: products (with a column outside the whitelist),
// categories, and users with password hashes that must never leak through a list.
import { DecimalType, EntitySchema } from '@mikro-orm/core'
import { suite, type Test } from 'uvu'
import { definePlugin, type Kernel } from 'fw'
import database, { createTestDatabase, Migration, type TestDatabase } from 'fw/plugins/database'
import debug from 'fw/plugins/debug'
import list, { datatableReply, defineListSource, listReply, type Pagination } from 'fw/plugins/list'
import { createTestKernel, type MemoryLogger } from 'fw/testing'
import { PRODUCT_COLUMNS, type Product } from '../../../playground/entities/product.js'

export class Item {
  id!: number
  name!: string
  sku!: string
  price!: number
  stock!: number
  active!: boolean
  tags!: string[]
  notes!: string | null
  category_id!: number | null
  created_at!: Date
  cost!: number
}

export const ItemSchema = new EntitySchema<Item>({
  class: Item,
  tableName: 'products',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string' },
    sku: { type: 'string' },
    price: { type: new DecimalType('number'), precision: 10, scale: 2 },
    stock: { type: 'integer' },
    active: { type: 'boolean' },
    tags: { type: 'json' },
    notes: { type: 'text', nullable: true },
    category_id: { type: 'integer', nullable: true },
    created_at: { type: 'datetime' },
    cost: { type: new DecimalType('number'), precision: 10, scale: 2 },
  },
})

/** A product row as the fixture inserts it. */
export interface Row extends Omit<Product, 'created_at'> {
  created_at: string
  cost: number
}

export const CATEGORIES = [
  { id: 1, title: 'Books', code: 'SECRET-B' },
  { id: 2, title: 'Garden', code: 'SECRET-G' },
  { id: 3, title: 'Kitchen', code: 'SECRET-K' },
] as const

const ADJECTIVES = ['Red', 'Blue', 'Green', 'Tiny', 'Large']
const NOUNS = ['Lamp', 'Chair', 'Kettle', 'Desk', 'Spoon', 'Book']

/** 30 regular products, then three whose names hold LIKE's special characters. */
export const ROWS: readonly Row[] = [
  ...Array.from({ length: 30 }, (_, k): Row => {
    const i = k + 1
    return {
      id: i,
      name: `${ADJECTIVES[i % 5]} ${NOUNS[i % 6]} ${i}`,
      sku: `SKU-${String(i).padStart(3, '0')}`,
      price: ((i * 7) % 50) + 0.5,
      stock: i % 4 === 0 ? 0 : i,
      active: i % 3 !== 0,
      tags: i % 2 === 1 ? ['odd'] : [],
      notes: i % 5 === 0 ? null : `note ${i}`,
      category_id: i % 4 === 0 ? null : (i % 3) + 1,
      created_at: new Date(Date.UTC(2025, 0, i)).toISOString(),
      cost: 1000 + i,
    }
  }),
  ...['Sale 50% off', 'snake_case kettle', 'back\\slash lamp'].map((name, k): Row => ({
    id: 31 + k,
    name,
    sku: `ODD-${k}`,
    price: 9.99,
    stock: 1,
    active: true,
    tags: [],
    notes: null,
    category_id: 1,
    created_at: new Date(Date.UTC(2025, 1, 1 + k)).toISOString(),
    cost: 1,
  })),
]

const literal = (v: unknown): string =>
  v === null ? 'null' : typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v)

export class CreateShop extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "categories" ("id" serial primary key, "title" varchar(100) not null, "code" varchar(20) not null)`,
    )
    this.addSql(
      `create table "users" ("id" serial primary key, "username" varchar(50) not null, "password_hash" varchar(100) not null)`,
    )
    this.addSql(`create table "products" ("id" serial primary key, "name" varchar(200) not null,
      "sku" varchar(64) not null, "price" numeric(10,2) not null, "stock" int not null,
      "active" boolean not null, "tags" jsonb not null, "notes" text null,
      "category_id" int null references "categories" ("id"), "created_at" timestamptz not null,
      "cost" numeric(10,2) not null)`)
    for (const c of CATEGORIES)
      this.addSql(
        `insert into "categories" values (${c.id}, ${literal(c.title)}, ${literal(c.code)})`,
      )
    this.addSql(
      `insert into "users" values (1, 'admin', 'HASH-OF-ADMIN'), (2, 'user', 'HASH-OF-USER')`,
    )
    for (const r of ROWS) {
      this.addSql(
        `insert into "products" values (${r.id}, ${literal(r.name)}, ${literal(r.sku)}, ${r.price}, ${r.stock}, ${r.active}, ${literal(JSON.stringify(r.tags))}, ${literal(r.notes)}, ${literal(r.category_id)}, ${literal(r.created_at)}, ${r.cost})`,
      )
    }
  }
}

/** The products list: every column but `cost`, and the category's title through a join. */
export const products = defineListSource({
  entity: Item,
  fields: [...PRODUCT_COLUMNS, 'categories.title'],
  defaultFields: ['id', 'name', 'price'],
  searchable: ['name', 'sku'],
  joins: [{ table: 'categories', on: ['categories.id', 'products.category_id'] }],
})

/** A table source without an entity, with a scope. */
export const categories = defineListSource({
  table: 'categories',
  fields: ['id', 'title'],
  defaultFields: ['title'],
  searchable: ['title'],
  scope: { sql: '"categories"."id" <> ?', bindings: [3] },
})

/** The identifiers the engine may write into SQL for these sources (quoted). */
export const ALLOWED_IDENTIFIERS = new Set(['products', 'categories', ...PRODUCT_COLUMNS, 'title'])

/** A source whose whitelist names a column the table lacks: its statements fail (SQLSTATE 42703). */
export const broken = defineListSource({
  table: 'products',
  fields: ['id', 'ghost'],
  defaultFields: ['ghost'],
})

const routes = definePlugin({
  name: 'shop',
  dependsOn: ['list'],
  setup(kernel) {
    kernel.router.get('products', (ctx) => listReply(ctx, products))
    kernel.router.get('products/datatable', (ctx) => datatableReply(ctx, products))
    kernel.router.get('categories', (ctx) => ctx.kernel.plugin('list').reply(ctx, categories))
    kernel.router.get('broken', (ctx) => listReply(ctx, broken))
    kernel.router.get('broken/datatable', (ctx) => datatableReply(ctx, broken))
    kernel.router.get('products/all', async (ctx) => {
      const api = ctx.kernel.plugin('list')
      const rows = await api.fetchAll(products, ctx.query)
      return { count: rows.length, failed: api.lastError()?.message ?? null }
    })
  },
})

/** What a suite's context holds. */
export interface Shop {
  db: TestDatabase
  kernel: Kernel & { logger: MemoryLogger }
}

/** How {@link openShop} builds the kernel. */
export interface ShopOptions {
  /** Development mode: failed lists show the database's message and SQL. Default `true`. */
  development?: boolean
  /** Register the debug plugin (feature `debug`, application key {@link SHOP_KEY}). */
  debug?: boolean
  /** More configuration (`list.max_search_length`…). */
  config?: Record<string, unknown>
}

/** The shop's application key, which signs debug grants when the debug plugin is registered. */
export const SHOP_KEY = 'list-shop-app-key-0123456789abcdef0123'

/** Boots the shop on the suite's own database (PGlite, or PostgreSQL under `DATABASE_URL`). */
export async function openShop(options: ShopOptions = {}): Promise<Shop> {
  const db = await createTestDatabase()
  const kernel = createTestKernel({
    config: {
      development: options.development ?? true,
      ...(options.debug ? { app: { key: SHOP_KEY }, features: ['debug'] } : {}),
      ...options.config,
    },
    plugins: [
      [
        database,
        {
          url: db.url,
          entities: [ItemSchema],
          migrations: [{ name: 'Migration20261201000000_shop', class: CreateShop }],
        },
      ],
      [list],
      [routes],
      ...(options.debug ? [[debug] as const] : []),
    ],
  })
  await kernel.boot()
  await kernel.plugin('database').prepare()
  return { db, kernel }
}

/** Closes the shop and drops its database. */
export async function closeShop({ kernel, db }: Shop): Promise<void> {
  await kernel.close()
  await db.drop()
}

/** A suite whose context is a shop opened before its tests and closed after them. */
export function shopSuite(name: string): Test<Shop> {
  const test = suite<Shop>(name)
  test.before(async (context) => void Object.assign(context, await openShop()))
  test.after((context) => closeShop(context))
  return test
}

/** A list answer as the tests read it. */
export interface Envelope {
  data: Record<string, unknown>[]
  pagination: Pagination | null
  fields: string[]
  error?: string
  debug?: { filter: string; order: string; selectFields: string }
}

/** A query string from parameters; objects and arrays are sent as JSON. */
export function queryString(params: Record<string, unknown>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params))
    q.append(k, typeof v === 'string' ? v : JSON.stringify(v))
  return q.toString()
}

/** GETs a list path as a JSON client; answers the body, the status and the statements run. */
export async function getList(
  kernel: Kernel,
  params: Record<string, unknown> | string = {},
  path = '/products',
): Promise<{ status: number; body: Envelope; sql: string[]; params: unknown[][] }> {
  const qs = typeof params === 'string' ? params : queryString(params)
  const res = await kernel.inject({
    url: qs === '' ? path : `${path}?${qs}`,
    headers: { accept: 'application/json' },
  })
  const statements = res.events.filter((e) => e.type === 'query.executed')
  return {
    status: res.status,
    body: res.json<Envelope>(),
    sql: statements.map((e) => e.data.sql),
    params: statements.map((e) => [...e.data.params]),
  }
}

/** The ids of rows, in order. */
export const ids = (body: Envelope): number[] => body.data.map((r) => r.id as number)

/** The fixture's ids matching `keep`, sorted by `by` (then id, the engine's tie-breaker). */
export function expected(
  keep: (r: Row) => boolean,
  by: (a: Row, b: Row) => number = (a, b) => b.id - a.id,
): number[] {
  return ROWS.filter(keep)
    .sort(by)
    .map((r) => r.id)
}
