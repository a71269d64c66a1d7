// The list envelope (plugins/list/README.md "Responses"): the success shape, the error envelope for
// JSON clients, the error page for browsers, and the last-error accessor of unpaginated fetches.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { fetchList, isListQueryError, ListQueryError } from 'fw/plugins/list'
import { eventsOf } from 'fw/testing'
import {
  closeShop,
  openShop,
  products,
  queryString,
  ROWS,
  type Envelope,
  type Shop,
} from './fixtures.js'

/** A development shop (the suite's own) and a production one with the debug plugin. */
const test = suite<Shop & { prod: Shop }>('list envelope')

test.before(async (context) => {
  Object.assign(context, await openShop())
  context.prod = await openShop({ development: false, debug: true })
})
test.after(async (context) => {
  await closeShop(context)
  await closeShop(context.prod)
})

const badPrice = queryString({ filter: [{ field: 'price', op: '>', value: 'abc' }] })

test('answers {data, pagination, fields} on success', async ({ kernel }) => {
  const res = await kernel.inject({
    url: '/products?per_page=2',
    headers: { accept: 'application/json' },
  })
  assert.is(res.status, 200)
  const body = res.json<Envelope>()
  assert.equal(Object.keys(body), ['data', 'pagination', 'fields'])
  assert.equal(body.fields, ['id', 'name', 'price'])
})

for (const [who, headers] of [
  ['a client that accepts JSON', { accept: 'application/json' }],
  ['an XMLHttpRequest', { 'x-requested-with': 'XMLHttpRequest' }],
] as const) {
  test(`answers ${who} 400 and the error envelope when the database refuses a value`, async ({
    kernel,
  }) => {
    const res = await kernel.inject({ url: `/products?fields=name,sku&${badPrice}`, headers })
    assert.is(res.status, 400)
    const body = res.json<Envelope>()
    assert.equal(Object.keys(body), ['error', 'data', 'pagination', 'fields', 'debug'])
    assert.is(body.error, 'Database query failed: invalid input syntax for type numeric: "abc"')
    assert.equal(body.data, [])
    assert.is(body.pagination, null)
    assert.equal(body.fields, ['name', 'sku'])
    assert.equal(body.debug, {
      filter: '"products"."price" > ?',
      order: '"products"."id" DESC',
      selectFields:
        '"products"."id" AS "id", "products"."name" AS "name", "products"."sku" AS "sku"',
    })
    // The value reached the database as a bound parameter and failed there.
    const [statement] = eventsOf(res.events, 'query.executed')
    assert.ok(statement!.data.failed)
    assert.equal(statement!.data.params, ['abc', 20, 0])
    assert.not.ok(statement!.data.sql.includes('abc'))
  })
}

test('keeps every value out of debug: placeholders only', async ({ kernel }) => {
  const marker = 'zz-marker-7f3'
  const res = await kernel.inject({
    url: `/products?${queryString({
      filter: [
        { field: 'created_at', op: '>', value: marker },
        { field: 'name', op: 'IN', value: [`${marker}-a`, `${marker}-b`] },
      ],
      search: `${marker}-search`,
      order: '-price',
    })}`,
    headers: { accept: 'application/json' },
  })
  assert.is(res.status, 400)
  const body = res.json<Envelope>()
  assert.not.ok(JSON.stringify(body.debug).includes(marker))
  assert.match(
    body.debug!.filter,
    /"products"\."created_at" > \? AND "products"\."name" IN \(\?, \?\) AND \(/,
  )
})

test('sends a browser the HTML error page instead of the envelope', async ({ kernel }) => {
  const res = await kernel.inject({
    url: `/products?${badPrice}`,
    headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
  })
  assert.is(res.status, 400)
  assert.match(String(res.headers['content-type']), /^text\/html/)
  assert.match(
    res.body,
    /Database query failed: invalid input syntax for type numeric: &quot;abc&quot;/,
  )
  assert.not.match(res.body, /debug|selectFields|"products"/)
  assert.ok(eventsOf(res.events, 'exception.raised').some((e) => e.data.status === 400))
})

test('answers 500 with the envelope, and logs, when the statement fails for another reason', async ({
  kernel,
}) => {
  const before = kernel.logger.entries.length
  const res = await kernel.inject({ url: '/broken', headers: { accept: 'application/json' } })
  assert.is(res.status, 500)
  const body = res.json<Envelope>()
  assert.is(body.error, 'Database query failed: column products.ghost does not exist')
  assert.equal(body.fields, ['ghost'])
  assert.equal(body.debug!.selectFields, '"products"."id" AS "id", "products"."ghost" AS "ghost"')
  assert.equal(
    eventsOf(res.events, 'exception.raised').map((e) => [e.data.name, e.data.code, e.data.status]),
    [['ListQueryError', '42703', 500]],
  )
  assert.ok(kernel.logger.entries.slice(before).some((e) => e.message === 'list query failed'))
})

test('throws a ListQueryError from code, with status, SQLSTATE and debug', async ({ kernel }) => {
  const em = kernel.plugin('database').em()
  try {
    await fetchList(em, products, { filter: [{ field: 'stock', op: '=', value: '1.5' }] })
    assert.unreachable('the statement should fail')
  } catch (error) {
    assert.ok(isListQueryError(error))
    const e = error as ListQueryError
    assert.is(e.status, 400)
    assert.is(e.sqlState, '22P02')
    assert.is(e.message, 'Database query failed: invalid input syntax for type integer: "1.5"')
    assert.is(e.debug.filter, '"products"."stock" = ?')
  }
})

test('tells a failure from an empty result on an unpaginated fetch', async ({ kernel }) => {
  const api = kernel.plugin('list')
  const empty = await api.fetchAll(products, { filter: [{ field: 'stock', op: '>', value: 1000 }] })
  assert.equal([empty, api.lastError()], [[], null])
  const failed = await api.fetchAll(products, {
    filter: [{ field: 'price', op: '>', value: 'abc' }],
  })
  assert.equal(failed, [])
  assert.ok(api.lastError() instanceof ListQueryError)
  assert.is(api.lastError()!.status, 400)
  const all = await api.fetchAll(products, { order: 'id' })
  assert.is(all.length, ROWS.length, 'unpaginated: every row')
  assert.is(api.lastError(), null, 'a success clears the last error')
})

test('keeps the last error per request inside requests', async ({ kernel }) => {
  const [bad, good] = await Promise.all([
    kernel.inject(`/products/all?${badPrice}`),
    kernel.inject('/products/all?search=lamp'),
  ])
  assert.equal(bad.json(), {
    count: 0,
    failed: 'Database query failed: invalid input syntax for type numeric: "abc"',
  })
  assert.equal(good.json(), {
    count: ROWS.filter((r) => r.name.toLowerCase().includes('lamp')).length,
    failed: null,
  })
})

test("runs inside the EntityManager's transaction", async ({ kernel }) => {
  const em = kernel.plugin('database').em()
  await em
    .transactional(async (tx) => {
      await tx.execute(
        `insert into "products" values (900, 'Only in tx', 'TX-1', 1, 1, true, '[]', null, null, now(), 1)`,
      )
      const inside = await fetchList(tx, products, { search: 'only in tx' })
      assert.equal(
        inside.data.map((r) => r.id),
        [900],
      )
      throw new Error('roll back')
    })
    .catch((error: Error) => assert.is(error.message, 'roll back'))
  const after = await fetchList(em, products, { search: 'only in tx' })
  assert.equal(after.data, [])
})

test('fails a source whose whitelist names a column the table lacks with the same envelope on datatables', async ({
  kernel,
}) => {
  const res = await kernel.inject({
    url: '/broken/datatable?draw=4',
    headers: { accept: 'application/json' },
  })
  assert.is(res.status, 500)
  const body = res.json<Record<string, unknown>>()
  assert.equal(
    [body.draw, body.recordsTotal, body.recordsFiltered, body.data, body.pagination],
    [4, 0, 0, [], null],
  )
  assert.match(String(body.error), /^Database query failed: /)
})

const DRIVER_TEXT = /invalid input syntax|numeric|does not exist|"products"|selectFields/

test('in production answers the envelope with a generic error and no SQL, status unchanged', async ({
  prod,
}) => {
  const refused = await prod.kernel.inject({
    url: `/products?fields=name,sku&${badPrice}`,
    headers: { accept: 'application/json' },
  })
  assert.is(refused.status, 400)
  const body = refused.json<Envelope>()
  assert.equal(body, {
    error: 'Database query failed',
    data: [],
    pagination: null,
    fields: ['name', 'sku'],
  })
  assert.not.match(refused.body, DRIVER_TEXT)
  const broken = await prod.kernel.inject({
    url: '/broken',
    headers: { accept: 'application/json' },
  })
  assert.is(broken.status, 500)
  assert.equal(broken.json<Envelope>(), {
    error: 'Database query failed',
    data: [],
    pagination: null,
    fields: ['ghost'],
  })
  assert.not.match(broken.body, DRIVER_TEXT)
  // The log keeps the database's message for the operator.
  assert.ok(prod.kernel.logger.entries.some((e) => e.message === 'list query failed'))
})

test('in production the datatables envelope and the browser page carry no database text either', async ({
  prod,
}) => {
  const table = await prod.kernel.inject({
    url: '/broken/datatable?draw=4',
    headers: { accept: 'application/json' },
  })
  assert.is(table.status, 500)
  const body = table.json<Record<string, unknown>>()
  assert.is(body.error, 'Database query failed')
  assert.ok(!('debug' in body))
  assert.not.match(table.body, DRIVER_TEXT)
  const page = await prod.kernel.inject({
    url: `/products?${badPrice}`,
    headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
  })
  assert.is(page.status, 400)
  assert.match(page.body, /Database query failed/)
  assert.not.match(page.body, DRIVER_TEXT)
})

test('in production a debug-grant holder gets the database message and the SQL fragments', async ({
  prod,
}) => {
  const { token } = prod.kernel.plugin('debug').issueToken(600)!
  const res = await prod.kernel.inject({
    url: `/products?fields=name,sku&${badPrice}`,
    headers: { accept: 'application/json', cookie: `fw_debug=${token}` },
  })
  assert.is(res.status, 400)
  const body = res.json<Envelope>()
  assert.is(body.error, 'Database query failed: invalid input syntax for type numeric: "abc"')
  assert.is(body.debug!.filter, '"products"."price" > ?')
  const forged = await prod.kernel.inject({
    url: `/products?${badPrice}`,
    headers: {
      accept: 'application/json',
      cookie: `fw_debug=${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`,
    },
  })
  assert.is(forged.json<Envelope>().error, 'Database query failed', 'a forged grant is no grant')
})

test.run()
