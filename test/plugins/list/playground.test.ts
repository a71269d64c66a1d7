// The playground's list endpoints as playground/README.md promises them: `GET /api/v1/products`,
// `GET /api/v1/products/datatable` and the `GET /products` page.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { eventsOf } from 'fw/testing'
import { queryString, type Envelope } from './fixtures.js'
import { bootApp, playground, tokenOf } from '../../fixtures/booted-app.js'
import { PRODUCT_COLUMNS } from '../../../playground/entities/product.js'

const test = suite<{ db: TestDatabase; kernel: Kernel }>('playground list endpoints')

// The playground's API key (playground/README.md), for when the API pipeline checks one.
const API = { accept: 'application/json', apikey: 'demo-api-key' }
/** The list's whitelist: every product column, and the category's title through a join. */
const WHITELIST: readonly string[] = [...PRODUCT_COLUMNS, 'title']

bootApp(test, playground({ FW_APP_KEY: 'base64:list-playground-key' }))

/** Asserts that the numeric column `key` of `rows` runs in `order`, as the list was asked to sort. */
function assertOrdered(rows: Record<string, unknown>[], key: string, order: 'asc' | 'desc'): void {
  const values = rows.map((r) => r[key] as number)
  const sorted = [...values].sort((a, b) => (order === 'asc' ? a - b : b - a))
  assert.equal(values, sorted, `${key} ${order}`)
}

async function bearer(kernel: Kernel): Promise<string> {
  return `Bearer ${await tokenOf(kernel, 'user')}`
}

test('shows /products to a guest, and its table answers a guest too', async ({ kernel }) => {
  const res = await kernel.inject({ url: '/products', headers: { accept: 'text/html' } })
  assert.is(res.status, 200)
  assert.match(res.body, /<table id="products"/)
  const table = await kernel.inject({
    url: '/products/table?draw=1&start=0&length=5',
    headers: { 'x-requested-with': 'XMLHttpRequest' },
  })
  assert.is(table.status, 200, table.body)
  assert.is(table.json<{ data: unknown[] }>().data.length, 5)
})

async function list(
  kernel: Kernel,
  params: Record<string, unknown>,
  headers: Record<string, string> = API,
) {
  const res = await kernel.inject({ url: `/api/v1/products?${queryString(params)}`, headers })
  return { res, body: res.json<Envelope>() }
}

test('lists id, name, sku and price by default, the newest id first', async ({ kernel }) => {
  const { res, body } = await list(kernel, {})
  assert.is(res.status, 200)
  // `_debug` joins JSON bodies in development once the toolbar is registered.
  assert.equal(
    Object.keys(body).filter((k) => k !== '_debug'),
    ['data', 'pagination', 'fields'],
  )
  assert.equal(body.fields, ['id', 'name', 'sku', 'price'])
  assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'sku', 'price'])
  assert.is(typeof body.data[0]!.price, 'number')
  const total = body.pagination!.totalitems
  assert.ok(total >= 1000)
  assert.equal(body.pagination, {
    currentpage: 1,
    itemsperpage: 20,
    totalitems: total,
    totalpages: Math.ceil(total / 20),
    hasnext: true,
    hasprevious: false,
  })
  assertOrdered(body.data, 'id', 'desc')
})

test('answers every whitelisted field, the category title with or without its prefix', async ({
  kernel,
}) => {
  // Asked for in reverse after `id` (always first): the answer keeps the order asked for.
  const asked = ['id', ...PRODUCT_COLUMNS.slice(1).reverse()]
  const { body } = await list(kernel, {
    fields: [...asked, 'categories.title'],
    order: 'id',
    per_page: 1,
  })
  assert.equal(body.fields, [...asked, 'title'])
  assert.equal(Object.keys(body.data[0]!), [...asked, 'title'])
  const plain = await list(kernel, { fields: 'title', order: 'id', per_page: 1 })
  assert.equal(plain.body.data[0]!.title, body.data[0]!.title)
  assert.is(typeof plain.body.data[0]!.title, 'string')
})

test('never reaches a column outside the whitelist, a join attempt included', async ({
  kernel,
}) => {
  for (const attempt of [
    'users.password_hash',
    'password_hash',
    'categories.id',
    'users.username',
    'applications.api_key_hash',
  ]) {
    for (const params of [
      { fields: `name,${attempt}` },
      { order: attempt },
      { filter: [{ field: attempt, op: 'IS NOT NULL' }] },
      { search: { [attempt]: 'a' } },
    ]) {
      const { res, body } = await list(kernel, params)
      assert.is(res.status, 200)
      assert.ok(body.data.every((r) => Object.keys(r).every((k) => WHITELIST.includes(k))))
      for (const { data } of eventsOf(res.events, 'query.executed'))
        assert.not.match(data.sql, /users|password|applications|"categories"\."id" AS/, attempt)
    }
  }
})

test('searches name and sku by plain text, ignoring case', async ({ kernel }) => {
  const bySku = await list(kernel, { search: 'pg-000', per_page: 50 })
  assert.equal(
    bySku.body.data.map((r) => r.sku).sort(),
    [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `PG-000${n}`),
  )
  const byName = await list(kernel, { search: 'LAMP', per_page: 500 })
  assert.ok(byName.body.data.length > 0)
  assert.ok(byName.body.data.every((r) => String(r.name).toLowerCase().includes('lamp')))
})

for (const [who, headers] of [
  ['Accept: application/json', API],
  [
    'X-Requested-With: XMLHttpRequest',
    { 'x-requested-with': 'XMLHttpRequest', apikey: 'demo-api-key' },
  ],
] as const) {
  test(`answers a failing filter with 400 and the error envelope (${who})`, async ({ kernel }) => {
    const { res, body } = await list(
      kernel,
      { filter: [{ field: 'price', op: '>', value: 'abc' }] },
      headers,
    )
    assert.is(res.status, 400)
    assert.is(body.error, 'Database query failed: invalid input syntax for type numeric: "abc"')
    assert.equal(
      [body.data, body.pagination, body.fields],
      [[], null, ['id', 'name', 'sku', 'price']],
    )
    assert.is(body.debug!.filter, '"products"."price" > ?')
  })
}

test('answers a browser with the HTML error page', async ({ kernel }) => {
  const res = await kernel.inject({
    url: `/api/v1/products?${queryString({ filter: [{ field: 'price', op: '>', value: 'abc' }] })}`,
    headers: { accept: 'text/html', apikey: 'demo-api-key' },
  })
  assert.is(res.status, 400)
  assert.match(String(res.headers['content-type']), /^text\/html/)
  assert.match(res.body, /Database query failed/)
})

test('serves the datatable endpoint', async ({ kernel }) => {
  const res = await kernel.inject({
    url: '/api/v1/products/datatable?draw=2&start=20&length=5&search[value]=lamp&columns[0][data]=id&columns[1][data]=title&columns[2][data]=price&order[0][column]=2&order[0][dir]=asc',
    headers: { 'x-requested-with': 'XMLHttpRequest', apikey: 'demo-api-key' },
  })
  assert.is(res.status, 200)
  const body = res.json<{
    draw: number
    recordsTotal: number
    recordsFiltered: number
    data: Record<string, unknown>[]
  }>()
  assert.is(body.draw, 2)
  assert.ok(body.recordsFiltered < body.recordsTotal)
  assert.equal(Object.keys(body.data[0]!), ['id', 'title', 'price'])
  assertOrdered(body.data, 'price', 'asc')
})

test('renders /products: a table whose script pages, sorts and searches through the datatable endpoint', async ({
  kernel,
}) => {
  const res = await kernel.inject({
    url: '/products',
    headers: { accept: 'text/html', authorization: await bearer(kernel) },
  })
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), /^text\/html/)
  assert.match(res.body, /<title>Products · fw playground<\/title>/)
  assert.match(res.body, /<table id="products"/)
  assert.match(res.body, /"endpoint":"\/products\/table"/)
  for (const piece of [
    "'search[value]'",
    "'order[0][column]'",
    "'X-Requested-With': 'XMLHttpRequest'",
    'columns[',
  ])
    assert.ok(res.body.includes(piece), piece)
  assert.match(res.body, /<th data-column="3"[^>]*><button type="button">Category<\/button>/)
})

test.run()
