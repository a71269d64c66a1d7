// What the list engine refuses before any statement (plugins/list/README.md "Refused input"): a
// NUL in any parameter it reads, at every entry point (list parameters, DataTables' global and
// column searches, keyset cursors), and a search term or LIKE pattern past
// `list.max_search_length`; and how a search term reaches the database (escaped, with ESCAPE).
import * as assert from 'uvu/assert'
import { closeShop, getList, ids, openShop, queryString, shopSuite, type Shop } from './fixtures.js'

const test = shopSuite('list refused input')

const NUL = '\u0000'

/** GETs `path?query` as a JSON client: status, body and how many statements ran. */
async function get(
  { kernel }: Shop,
  path: string,
  query: string,
): Promise<{ status: number; body: Record<string, unknown>; statements: number }> {
  const res = await kernel.inject({
    url: `${path}?${query}`,
    headers: { accept: 'application/json' },
  })
  return {
    status: res.status,
    body: res.json<Record<string, unknown>>(),
    statements: res.events.filter((e) => e.type === 'query.executed').length,
  }
}

const columns = (...names: string[]): string =>
  names.map((n, i) => `columns[${i}][data]=${n}&columns[${i}][searchable]=true`).join('&')

test('a NUL in a list parameter: 400 invalid_input, no statement run', async (shop) => {
  const attempts: string[] = [
    queryString({ filter: [{ field: 'name', op: '=', value: `a${NUL}b` }] }),
    queryString({ filter: [{ or: [{ field: 'sku', op: 'LIKE', value: `%${NUL}%` }] }] }),
    queryString({ filter: [{ field: 'name', op: 'IN', value: ['x', `y${NUL}`] }] }),
    `filter[0][field]=name&filter[0][op]=%3D&filter[0][value]=a%00b`,
    queryString({ search: `lamp${NUL}` }),
    queryString({ search: { name: `lamp${NUL}` } }),
    queryString({ search: ['red', `lamp${NUL}`] }),
    `search[name]=la%00mp`,
    // A name the engine would drop is refused too: nothing it reads may hold a NUL.
    queryString({ search: { [`na${NUL}me`]: 'lamp' } }),
    queryString({ fields: `name,${NUL}` }),
    queryString({ order: `-price${NUL}` }),
    queryString({ page: `1${NUL}` }),
    queryString({ after: NUL }),
  ]
  for (const query of attempts) {
    const { status, body, statements } = await get(shop, '/products', query)
    assert.is(status, 400, query)
    assert.is(body.error, 'invalid_input', query)
    assert.type(body.message, 'string')
    assert.is(statements, 0, query)
  }
})

test('a NUL in a DataTables parameter, column searches included: 400 before any statement', async (shop) => {
  for (const query of [
    `${columns('name')}&search[value]=la%00mp`,
    `${columns('name', 'sku')}&columns[1][search][value]=SKU%00`,
    `${columns('name')}&columns[0][search][value]=x&columns[0][search][regex]=%00`,
    `${columns('na%00me')}`,
    `${columns('name')}&order[0][column]=0&order[0][dir]=de%00sc`,
    `${columns('name')}&${queryString({ filter: [{ field: 'name', op: '=', value: NUL }] })}`,
  ]) {
    const { status, body, statements } = await get(shop, '/products/datatable', query)
    assert.is(status, 400, query)
    assert.is(body.error, 'invalid_input', query)
    assert.is(statements, 0, query)
  }
})

test('a keyset cursor carrying a NUL is refused, one without is followed', async (shop) => {
  const first = await getList(shop.kernel, { order: 'name', per_page: 2, after: '' })
  const cursor = first.body.pagination!.nextcursor!
  const next = await getList(shop.kernel, { order: 'name', per_page: 2, after: cursor })
  assert.is(next.status, 200)
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as {
    o: string
    v: unknown[]
  }
  const forged = Buffer.from(JSON.stringify({ ...decoded, v: [`x${NUL}`, decoded.v[1]] })).toString(
    'base64url',
  )
  const { status, body, statements } = await get(
    shop,
    '/products',
    queryString({ order: 'name', per_page: 2, after: forged }),
  )
  assert.is(status, 400)
  assert.is(body.error, 'invalid_input')
  assert.is(statements, 0)
})

test('a search term past 200 characters: 422 search_too_long with the limit, no statement', async (shop) => {
  const long = 'a'.repeat(201)
  const worst = '_%'.repeat(3500)
  for (const [path, query] of [
    ['/products', queryString({ search: long })],
    ['/products', queryString({ search: { name: long } })],
    ['/products', queryString({ search: ['lamp', long] })],
    ['/products', queryString({ filter: [{ field: 'name', op: 'LIKE', value: long }] })],
    ['/products', queryString({ filter: [{ or: [{ field: 'sku', op: 'ilike', value: worst }] }] })],
    [
      '/products/datatable',
      `${columns('name')}&${new URLSearchParams({ 'search[value]': worst })}`,
    ],
    ['/products/datatable', `${columns('name')}&columns[0][search][value]=${long}`],
  ] as const) {
    const { status, body, statements } = await get(shop, path, query)
    assert.is(status, 422, `${path} ${query.slice(0, 80)}`)
    assert.equal(body, {
      error: 'search_too_long',
      message: 'A search term may hold at most 200 characters.',
      max_length: 200,
    })
    assert.is(statements, 0)
  }
})

test('200 characters pass; the limit counts characters, not UTF-16 units', async (shop) => {
  for (const term of ['a'.repeat(200), '😀'.repeat(200), ` ${'b'.repeat(200)}  `]) {
    const { status } = await get(shop, '/products', queryString({ search: term }))
    assert.is(status, 200, term.slice(0, 4))
  }
})

test('list.max_search_length sets the limit', async () => {
  const shop = await openShop({ config: { list: { max_search_length: 4 } } })
  try {
    assert.is((await get(shop, '/products', queryString({ search: 'lamp' }))).status, 200)
    const { status, body } = await get(shop, '/products', queryString({ search: 'lamps' }))
    assert.is(status, 422)
    assert.is(body.max_length, 4)
    assert.is(body.message, 'A search term may hold at most 4 characters.')
  } finally {
    await closeShop(shop)
  }
})

test('a term is bound escaped, with an ESCAPE clause, and % and _ match themselves', async ({
  kernel,
}) => {
  const { body, sql, params } = await getList(kernel, { per_page: 500, search: '50%_' })
  assert.equal(ids(body), [])
  assert.match(sql[0]!, /ILIKE \? ESCAPE '\\' OR .* ILIKE \? ESCAPE '\\'/)
  assert.equal(params[0]!.slice(0, 2), ['%50\\%\\_%', '%50\\%\\_%'])
  const percent = await getList(kernel, { per_page: 500, search: { name: '%' } })
  assert.equal(ids(percent.body), [31])
  const underscore = await getList(kernel, { per_page: 500, search: ['_', 'kettle'] })
  assert.equal(ids(underscore.body), [32])
})

test('DataTables column searches narrow their field, ANDed with the global search', async (shop) => {
  const query = `${columns('name', 'sku')}&length=100&search[value]=lamp&columns[1][search][value]=odd-2`
  const { status, body } = await get(shop, '/products/datatable', query)
  assert.is(status, 200)
  assert.equal(
    (body.data as { name: string }[]).map((r) => r.name),
    ['back\\slash lamp'],
  )
  // A column marked searchable=false is not searched.
  const off = await get(
    shop,
    '/products/datatable',
    `columns[0][data]=name&columns[0][searchable]=false&columns[0][search][value]=nothing-like-this&length=100`,
  )
  assert.is((off.body.data as unknown[]).length, 33)
})

test.run()
