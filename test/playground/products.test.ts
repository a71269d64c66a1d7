import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import type { TestDatabase } from 'fw/plugins/database'
import type { Pagination } from 'fw/plugins/list'
import { eventsOf } from 'fw/testing'
import { Product, PRODUCT_COLUMNS } from '../../playground/entities/product.js'
import { bootApp, playground } from '../fixtures/booted-app.js'

interface Page {
  data: Record<string, unknown>[]
  pagination: Pagination
  fields: string[]
}
/** A product as show, store and update answer it: the record itself. */
type One = Record<string, unknown>
type Invalid = { errors: Record<string, string[]> }

const test = suite<{ db: TestDatabase; kernel: Kernel }>('playground products API')
/** The playground's API key: every `/api/v1` and `/api/v2` route runs the API pipeline. */
const API = { apikey: 'demo-api-key' }
const JSON_ACCEPT = { accept: 'application/json', ...API }

bootApp(test, playground({ FW_CONFIG: '{"features":["DevPanel"]}' }))

function post(kernel: Kernel, body: unknown, method = 'POST', url = '/api/v1/products') {
  return kernel.inject({ method, url, headers: JSON_ACCEPT, body: body as Record<string, unknown> })
}

const valid = { name: 'Desk lamp', sku: 'NEW-0001', price: 19.5, stock: 3 }
/** Valid but for the field under test, with a sku no test stores. */
const unstored = { ...valid, sku: 'NEVER-STORED' }

test('lists the first page of 20 products in the default field set, newest id first', async ({
  kernel,
}) => {
  const res = await kernel.inject({ url: '/api/v1/products', headers: API })
  assert.is(res.status, 200)
  const body = res.json<Page>()
  assert.equal(Object.keys(body), ['data', 'pagination', 'fields'])
  assert.equal(body.fields, ['id', 'name', 'sku', 'price'])
  assert.equal(
    body.data.map((p) => p.id),
    Array.from({ length: 20 }, (_, i) => 1000 - i),
  )
  const byId = (
    await kernel.inject({ url: '/api/v1/products?order=id', headers: API })
  ).json<Page>()
  assert.equal(
    byId.data.map((p) => p.id),
    Array.from({ length: 20 }, (_, i) => i + 1),
  )
  assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'sku', 'price'])
  assert.is(byId.data[0]!.sku, 'PG-0001')
  assert.is(typeof body.data[0]!.price, 'number')
  assert.equal(body.pagination, {
    currentpage: 1,
    itemsperpage: 20,
    totalitems: 1000,
    totalpages: 50,
    hasnext: true,
    hasprevious: false,
  })
})

test('pages with page and per_page, clamping per_page into 1…500 and defaulting junk', async ({
  kernel,
}) => {
  const third = (
    await kernel.inject({ url: '/api/v1/products?page=3&per_page=7&order=id', headers: API })
  ).json<Page>()
  assert.equal(
    third.data.map((p) => p.id),
    [15, 16, 17, 18, 19, 20, 21],
  )
  assert.equal(third.pagination, {
    currentpage: 3,
    itemsperpage: 7,
    totalitems: 1000,
    totalpages: 143,
    hasnext: true,
    hasprevious: true,
  })
  const big = (
    await kernel.inject({ url: '/api/v1/products?per_page=100000', headers: API })
  ).json<Page>()
  assert.is(big.data.length, 500)
  assert.is(big.pagination.itemsperpage, 500)
  const junk = (
    await kernel.inject({ url: '/api/v1/products?page=abc&per_page=0', headers: API })
  ).json<Page>()
  assert.is(junk.pagination.currentpage, 1)
  assert.is(junk.pagination.itemsperpage, 1)
  const past = (await kernel.inject({ url: '/api/v1/products?page=99', headers: API })).json<Page>()
  assert.equal(past.data, [])
  assert.is(past.pagination.hasnext, false)
})

test('shows a product with every column', async ({ kernel }) => {
  const res = await kernel.inject({ url: '/api/v1/products/1', headers: API })
  assert.is(res.status, 200)
  const data = res.json<One>()
  assert.equal(Object.keys(data).sort(), [...PRODUCT_COLUMNS].sort())
  assert.is(data.id, 1)
  assert.is(data.sku, 'PG-0001')
  assert.ok(Array.isArray(data.tags))
  assert.match(String(data.created_at), /^2025-\d\d-\d\dT/)
})

test('answers 404 not_found for a missing or non-numeric id', async ({ kernel }) => {
  for (const id of ['99999', 'abc', '1.5']) {
    const res = await kernel.inject({ url: `/api/v1/products/${id}`, headers: JSON_ACCEPT })
    assert.is(res.status, 404, id)
    assert.equal(res.json(), { error: 'not_found' })
  }
})

test('stores a product: 201, the record, a Location, and the row', async ({ kernel }) => {
  const res = await post(kernel, {
    ...valid,
    tags: ['desk'],
    id: 5,
    created_at: '2000-01-01',
    colour: 'red',
  })
  assert.is(res.status, 201)
  const data = res.json<One>()
  assert.ok((data.id as number) > 1000, 'the id comes from the sequence, not the body')
  assert.equal(
    { ...data, id: 0, created_at: 0 },
    {
      id: 0,
      name: 'Desk lamp',
      sku: 'NEW-0001',
      price: 19.5,
      stock: 3,
      active: true,
      tags: ['desk'],
      notes: null,
      category_id: null,
      created_at: 0,
    },
  )
  assert.is(res.headers.location, `/api/v1/products/${data.id}`)
  const row = await kernel.plugin('database').em().findOne(Product, { sku: 'NEW-0001' })
  assert.is(row?.id, data.id)
  assert.is(
    (await kernel.inject({ url: `/api/v1/products/${data.id}`, headers: API })).json<One>().name,
    'Desk lamp',
  )
  assert.ok(eventsOf(res.events, 'model.created').some((e) => e.data.entity === 'Product'))
})

test('stores a product from a form body', async ({ kernel }) => {
  const res = await kernel.inject({
    method: 'POST',
    url: '/api/v1/products',
    headers: { ...JSON_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=Form+chair&sku=FORM-1&price=12.50&stock=4&active=false&tags[]=a&tags[]=b&category_id=2',
  })
  assert.is(res.status, 201)
  const data = res.json<One>()
  assert.equal(
    [data.price, data.stock, data.active, data.tags, data.category_id],
    [12.5, 4, false, ['a', 'b'], 2],
  )
})

for (const [field, body] of [
  ['name', { ...unstored, name: '' }],
  ['name', { ...unstored, name: 'x'.repeat(201) }],
  ['name', { ...unstored, name: 42 }],
  ['price', { ...unstored, price: -0.01 }],
  ['price', { ...unstored, price: '12' }],
  ['stock', { ...unstored, stock: 1.5 }],
  ['stock', { ...unstored, stock: -1 }],
  ['sku', { ...unstored, sku: 'PG-0001' }],
  ['sku', { ...unstored, sku: '' }],
  ['tags', { ...unstored, tags: 'desk' }],
  ['tags', { ...unstored, tags: ['desk', 1] }],
  ['active', { ...unstored, active: 'yes' }],
  ['notes', { ...unstored, notes: 5 }],
  ['category_id', { ...unstored, category_id: 99 }],
] as const) {
  test(`refuses ${JSON.stringify(body[field as keyof typeof body]).slice(0, 20)} as ${field} with 422`, async ({
    kernel,
  }) => {
    const res = await post(kernel, body)
    assert.is(res.status, 422)
    const { errors } = res.json<Invalid>()
    // An element of an array is named by its index (`tags.1`), as Laravel names it.
    const name = Array.isArray(body[field as keyof typeof body]) ? `${field}.1` : field
    assert.equal(Object.keys(errors), [name])
    assert.ok(errors[name]!.length > 0 && errors[name]!.every((m) => typeof m === 'string'))
  })
}

test('accepts a 200-character name', async ({ kernel }) => {
  const res = await post(kernel, { ...valid, name: 'x'.repeat(200), sku: 'LONG-200' })
  assert.is(res.status, 201)
})

test('names every missing required field at once', async ({ kernel }) => {
  const res = await post(kernel, {})
  assert.is(res.status, 422)
  assert.equal(Object.keys(res.json<Invalid>().errors).sort(), ['name', 'price', 'sku', 'stock'])
})

test('answers 201 and 422 when two requests store one sku at once', async ({ kernel }) => {
  const body = { ...valid, sku: 'RACE-1' }
  const statuses = (await Promise.all([post(kernel, body), post(kernel, body)])).map(
    (r) => r.status,
  )
  assert.equal(statuses.sort(), [201, 422])
  assert.is(await kernel.plugin('database').em().count(Product, { sku: 'RACE-1' }), 1)
})

test('updates only the given fields on PATCH', async ({ kernel }) => {
  const before = (await kernel.inject({ url: '/api/v1/products/2', headers: API })).json<One>()
  const res = await post(
    kernel,
    { price: 7.25, notes: null, sku: before.sku },
    'PATCH',
    '/api/v1/products/2',
  )
  assert.is(res.status, 200)
  assert.equal(res.json<One>(), { ...before, price: 7.25, notes: null })
  assert.equal((await kernel.inject({ url: '/api/v1/products/2', headers: API })).json<One>(), {
    ...before,
    price: 7.25,
    notes: null,
  })
})

test('answers PUT on a product with 405 and Allow: update is PATCH only', async ({ kernel }) => {
  const res = await post(kernel, { ...valid, sku: 'PUT-3' }, 'PUT', '/api/v1/products/3')
  assert.is(res.status, 405)
  assert.is(res.headers.allow, 'DELETE, GET, HEAD, PATCH')
  assert.is(
    (await kernel.inject({ url: '/api/v1/products/3', headers: API })).json<One>().sku,
    'PG-0003',
  )
})

test('answers 422 naming the field, never 500, to a malformed PATCH body', async ({ kernel }) => {
  for (const body of [{ price: 'free' }, { stock: -1, name: '' }, { tags: [1] }]) {
    const res = await post(kernel, body, 'PATCH', '/api/v1/products/3')
    assert.is(res.status, 422, JSON.stringify(body))
    assert.ok(Object.keys(res.json<Invalid>().errors).length > 0)
  }
})

test("refuses to update a product's sku to another product's", async ({ kernel }) => {
  const res = await post(kernel, { sku: 'PG-0005' }, 'PATCH', '/api/v1/products/4')
  assert.is(res.status, 422)
  assert.equal(Object.keys(res.json<Invalid>().errors), ['sku'])
  const empty = await post(kernel, { name: ' ' }, 'PATCH', '/api/v1/products/4')
  assert.equal(Object.keys(empty.json<Invalid>().errors), ['name'])
})

test('destroys a product: 204 without a body, then 404', async ({ kernel }) => {
  const res = await kernel.inject({
    method: 'DELETE',
    url: '/api/v1/products/10',
    headers: JSON_ACCEPT,
  })
  assert.is(res.status, 204)
  assert.is(res.body, '')
  assert.is((await kernel.inject({ url: '/api/v1/products/10', headers: JSON_ACCEPT })).status, 404)
  assert.is(
    (await kernel.inject({ method: 'DELETE', url: '/api/v1/products/10', headers: JSON_ACCEPT }))
      .status,
    404,
  )
  assert.is((await post(kernel, { price: 1 }, 'PATCH', '/api/v1/products/10')).status, 404)
})

test('answers the v2 list in the flat shape', async ({ kernel }) => {
  const total = await kernel.plugin('database').em().count(Product)
  const res = await kernel.inject({ url: '/api/v2/products?page=2&per_page=50', headers: API })
  assert.is(res.status, 200)
  const body = res.json<{
    data: Record<string, unknown>[]
    total: number
    page: number
    per_page: number
    last_page: number
  }>()
  assert.equal(Object.keys(body), ['data', 'total', 'page', 'per_page', 'last_page'])
  assert.equal(
    [body.total, body.page, body.per_page, body.last_page],
    [total, 2, 50, Math.ceil(total / 50)],
  )
  assert.is(body.data.length, 50)
  assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'sku', 'price'])
  assert.equal(
    body.data,
    (
      await kernel.inject({ url: '/api/v1/products?page=2&per_page=50&order=id', headers: API })
    ).json<Page>().data,
  )
})

test('runs n queries on /_demo/queries, n clamped into 1…200', async ({ kernel }) => {
  const res = await kernel.inject('/_demo/queries?n=5')
  assert.is(res.status, 200)
  assert.equal(res.json(), { queries: 5 })
  assert.is(eventsOf(res.events, 'query.executed').length, 5)
  for (const [n, expected] of [
    ['1000', 200],
    ['0', 1],
    ['x', 1],
  ] as const) {
    const clamped = await kernel.inject(`/_demo/queries?n=${n}`)
    assert.equal(clamped.json(), { queries: expected }, n)
    assert.is(eventsOf(clamped.events, 'query.executed').length, expected, n)
  }
})

test('answers /products to a guest, whose table loads from GET /products/table', async ({
  kernel,
}) => {
  const page = await kernel.inject({ url: '/products' })
  assert.is(page.status, 200)
  assert.match(page.body.toString(), '/products/table')
  const table = await kernel.inject({
    url: '/products/table?draw=3&start=0&length=5&columns[0][data]=id&columns[1][data]=title&order[0][column]=0&order[0][dir]=asc',
    headers: { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' },
  })
  assert.is(table.status, 200)
  const body = table.json<{ draw: number; recordsTotal: number; data: Record<string, unknown>[] }>()
  assert.equal([body.draw, body.data.length], [3, 5])
  assert.ok(body.recordsTotal >= 1000)
  assert.equal(body.data[0]!.id, 1)
  assert.is(table.headers['access-control-allow-origin'], undefined, 'no CORS: same origin only')
})

test("the guests' table answers only the page's columns and only to GET", async ({ kernel }) => {
  const notes = await kernel.inject({
    url: '/products/table?draw=1&start=0&length=5&columns[0][data]=notes',
    headers: { accept: 'application/json' },
  })
  assert.not.ok(notes.status === 200 && notes.body.toString().includes('"notes"'))
  const post = await kernel.inject({ method: 'POST', url: '/products/table', headers: JSON_ACCEPT })
  assert.is(post.status, 405)
  // The API keeps its rule: without a key or a signed-in session, refused.
  const api = await kernel.inject({
    url: '/api/v1/products/datatable?draw=1&start=0&length=5',
    headers: { accept: 'application/json' },
  })
  assert.is(api.status, 403)
})

test.run()
