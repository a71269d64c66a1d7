// The DataTables server-side protocol over the list engine (plugins/list/README.md "DataTables").
import * as assert from 'uvu/assert'
import { expected, ROWS, shopSuite, type Shop } from './fixtures.js'

const test = shopSuite('list datatables')

interface Answer {
  draw: number
  recordsTotal: number
  recordsFiltered: number
  data: Record<string, unknown>[]
}

const COLUMNS = ['id', 'name', 'title', 'price']
function columns(names: readonly string[] = COLUMNS): string {
  return names.map((n, i) => `columns[${i}][data]=${encodeURIComponent(n)}`).join('&')
}

async function table(kernel: Shop['kernel'], query: string) {
  const res = await kernel.inject({
    url: `/products/datatable?${query}`,
    headers: { 'x-requested-with': 'XMLHttpRequest' },
  })
  const sql = res.events.filter((e) => e.type === 'query.executed').map((e) => e.data.sql)
  return { status: res.status, body: res.json<Answer>(), sql }
}

test('answers draw, recordsTotal, recordsFiltered and the columns asked for', async ({
  kernel,
}) => {
  const { status, body } = await table(kernel, `draw=7&start=0&length=3&${columns()}`)
  assert.is(status, 200)
  assert.equal(Object.keys(body), ['draw', 'recordsTotal', 'recordsFiltered', 'data'])
  assert.equal([body.draw, body.recordsTotal, body.recordsFiltered], [7, ROWS.length, ROWS.length])
  assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'title', 'price'])
  assert.equal(
    body.data.map((r) => r.id),
    [33, 32, 31],
  )
})

test('counts once with no search, and recounts recordsTotal only when a search is active', async ({
  kernel,
}) => {
  const plain = await table(kernel, `draw=1&length=5&${columns()}`)
  assert.is(plain.sql.filter((s) => s.startsWith('SELECT count')).length, 1)
  assert.is(plain.body.recordsTotal, plain.body.recordsFiltered)
  const searched = await table(kernel, `draw=2&length=10&search[value]=lamp&${columns()}`)
  const counts = searched.sql.filter((s) => s.startsWith('SELECT count'))
  assert.is(counts.length, 1, 'the filtered count comes from the short page itself')
  assert.not.match(counts[0]!, /ILIKE/, 'recordsTotal is counted without the search')
  assert.is(searched.body.recordsTotal, ROWS.length)
  assert.is(
    searched.body.recordsFiltered,
    ROWS.filter((r) => r.name.toLowerCase().includes('lamp')).length,
  )
  const both = await table(kernel, `draw=3&length=1&search[value]=e&${columns()}`)
  assert.is(both.sql.filter((s) => s.startsWith('SELECT count')).length, 2)
  assert.ok(both.body.recordsFiltered < both.body.recordsTotal)
})

test('orders by the column order[i][column] points at, in order[i][dir]', async ({ kernel }) => {
  const { body, sql } = await table(
    kernel,
    `draw=1&length=500&${columns()}&order[0][column]=3&order[0][dir]=desc&order[1][column]=0&order[1][dir]=asc`,
  )
  assert.equal(
    body.data.map((r) => r.id),
    expected(
      () => true,
      (a, b) => b.price - a.price || a.id - b.id,
    ),
  )
  assert.match(sql[0]!, /ORDER BY "products"\."price" DESC, "products"\."id" ASC LIMIT/)
})

test('skips an order on a column marked orderable=false, out of range, or not whitelisted', async ({
  kernel,
}) => {
  const { sql } = await table(
    kernel,
    `${columns(['id', 'name', 'cost'])}&columns[1][orderable]=false&order[0][column]=1&order[1][column]=9&order[2][column]=2&order[3][column]=x`,
  )
  assert.match(sql[0]!, /ORDER BY "products"\."id" DESC LIMIT/)
  assert.not.match(sql[0]!, /cost/)
})

test('pages with start and length, length -1 meaning as many as allowed', async ({ kernel }) => {
  const page = await table(kernel, `start=10&length=5&${columns(['id'])}&order[0][column]=0`)
  assert.equal(
    page.body.data.map((r) => r.id),
    [11, 12, 13, 14, 15],
  )
  const every = await table(kernel, `start=0&length=-1&${columns(['id'])}`)
  assert.is(every.body.data.length, ROWS.length)
  const junk = await table(kernel, `start=x&length=y&${columns(['id'])}`)
  assert.is(junk.body.data.length, 10, 'DataTables’ default length')
})

test('answers draw as an integer, 0 when absent or not a number', async ({ kernel }) => {
  for (const [query, draw] of [
    ['draw=12', 12],
    ['', 0],
    ['draw=abc', 0],
    ['draw=-3', 0],
  ] as const) {
    assert.is((await table(kernel, `${query}&${columns(['id'])}`)).body.draw, draw, query)
  }
})

test('uses the default fields when no column names a whitelisted field', async ({ kernel }) => {
  for (const query of ['', columns(['cost', 'users.password_hash', 'Name', ''])]) {
    const { body, sql } = await table(kernel, `length=1&${query}`)
    assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'price'], query)
    assert.not.match(sql[0]!, /cost|password/)
  }
})

test('searches the searchable fields literally', async ({ kernel }) => {
  const { body } = await table(kernel, `length=50&search[value]=50%25&${columns(['id'])}`)
  assert.equal(
    body.data.map((r) => r.id),
    [31],
  )
  assert.is(body.recordsFiltered, 1)
})

test('passes the engine’s filter parameter through', async ({ kernel }) => {
  const filter = encodeURIComponent(JSON.stringify([{ field: 'category_id', op: '=', value: 2 }]))
  const { body } = await table(kernel, `length=500&filter=${filter}&${columns(['id'])}`)
  assert.equal(
    body.data.map((r) => r.id),
    expected((r) => r.category_id === 2),
  )
  assert.is(body.recordsTotal, body.recordsFiltered)
})

test.run()
