// Keyset paging (`after=`): the deep-paging option of the list engine.
import * as assert from 'uvu/assert'
import { getList, ids, ROWS, shopSuite, type Shop } from './fixtures.js'

const test = shopSuite('list keyset paging')

async function walk(kernel: Shop['kernel'], params: Record<string, unknown>): Promise<number[]> {
  const seen: number[] = []
  let after = ''
  for (let guard = 0; guard < 50; guard++) {
    const { body } = await getList(kernel, { ...params, per_page: 4, after })
    seen.push(...ids(body))
    if (!body.pagination!.nextcursor) return seen
    after = body.pagination!.nextcursor
  }
  throw new Error('the cursor never ended')
}

test('walks every row exactly once, in the order offset paging gives, whatever the order', async ({
  kernel,
}) => {
  for (const order of [
    '',
    '-price',
    'price',
    'notes,-name',
    '-notes',
    'title,-stock',
    '-active,created_at',
    'tags',
  ]) {
    const offsetOrder = ids((await getList(kernel, { order, per_page: 500 })).body)
    assert.equal(await walk(kernel, { order }), offsetOrder, order)
  }
})

test('walks a filtered list', async ({ kernel }) => {
  const params = { order: '-stock', filter: [{ field: 'active', op: '=', value: true }] }
  const offsetOrder = ids((await getList(kernel, { ...params, per_page: 500 })).body)
  assert.equal(await walk(kernel, params), offsetOrder)
  assert.is(offsetOrder.length, ROWS.filter((r) => r.active).length)
})

test('reports keyset pagination: nextcursor, hasnext, hasprevious, the total', async ({
  kernel,
}) => {
  const first = (await getList(kernel, { order: '-price', per_page: 30, after: '' })).body
  assert.equal(
    { ...first.pagination, nextcursor: typeof first.pagination!.nextcursor },
    {
      currentpage: 1,
      itemsperpage: 30,
      totalitems: ROWS.length,
      totalpages: 2,
      hasnext: true,
      hasprevious: false,
      nextcursor: 'string',
    },
  )
  const last = (
    await getList(kernel, {
      order: '-price',
      per_page: 30,
      page: 2,
      after: first.pagination!.nextcursor,
    })
  ).body
  assert.is(last.data.length, ROWS.length - 30)
  assert.equal(
    [last.pagination!.hasnext, last.pagination!.hasprevious, last.pagination!.nextcursor],
    [false, true, null],
  )
})

test('seeks with a row comparison when every key runs one way over non-null columns', async ({
  kernel,
}) => {
  const first = (await getList(kernel, { order: '-price', per_page: 2, after: '' })).body
  const { sql } = await getList(kernel, {
    order: '-price',
    per_page: 2,
    after: first.pagination!.nextcursor,
  })
  assert.match(sql[0]!, /WHERE \("products"\."price", "products"\."id"\) < \(\?, \?\) ORDER BY/)
  assert.match(sql[0]!, /LIMIT \?$/, 'no OFFSET')
})

test('starts over on a malformed cursor or one made for another order', async ({ kernel }) => {
  const first = (await getList(kernel, { order: '-price', per_page: 3, after: '' })).body
  const other = first.pagination!.nextcursor!
  for (const after of [
    other,
    'not-a-cursor',
    Buffer.from('{"o":"-price","v":[1]}').toString('base64url'),
    Buffer.from('{"o":"-products.stock,-products.id","v":[{"x":1},2]}').toString('base64url'),
    'x'.repeat(5000),
  ]) {
    const { body, status } = await getList(kernel, { order: '-stock', per_page: 3, after })
    assert.is(status, 200)
    assert.is(body.pagination!.hasprevious, false, after.slice(0, 20))
  }
})

test('binds cursor values: a forged cursor reaches the database only as parameters', async ({
  kernel,
}) => {
  const forged = Buffer.from(
    JSON.stringify({ o: '-products.price,-products.id', v: ["1'); drop table products; --", 1] }),
  ).toString('base64url')
  const res = await getList(kernel, { order: '-price', after: forged })
  assert.is(res.status, 400)
  assert.not.match(res.sql[0]!, /drop/)
  assert.is((await getList(kernel, { per_page: 500 })).body.data.length, ROWS.length)
})

test.run()
