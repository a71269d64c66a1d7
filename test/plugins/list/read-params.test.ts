// The `order`, `fields`, `search`, `page` and `per_page` rules of plugins/list/README.md
// "Parameters" (`filter`: read-filter.test.ts), through HTTP, on the suite's database
// (PGlite, or PostgreSQL when DATABASE_URL is set: CI runs the suite once on each).
import * as assert from 'uvu/assert'
import { expected, getList, ids, ROWS, type Row, shopSuite } from './fixtures.js'

const test = shopSuite('list parameters')

const all = { per_page: 500 }
const byPrice = (a: Row, b: Row): number => a.price - b.price || a.id - b.id
const byPriceDesc = (a: Row, b: Row): number => b.price - a.price || b.id - a.id

// order

test('sorts by a whitelisted field ascending, and descending with a leading minus', async ({
  kernel,
}) => {
  const up = await getList(kernel, { ...all, order: 'price' })
  assert.equal(
    ids(up.body),
    expected(() => true, byPrice),
  )
  const down = await getList(kernel, { ...all, order: '-price' })
  assert.equal(
    ids(down.body),
    expected(() => true, byPriceDesc),
  )
  assert.match(down.sql[0]!, /ORDER BY "products"\."price" DESC, "products"\."id" DESC/)
})

test('sorts by several comma-separated fields, in the order given', async ({ kernel }) => {
  const { body, sql } = await getList(kernel, { ...all, order: '-stock, price' })
  assert.equal(
    ids(body),
    expected(
      () => true,
      (a, b) => b.stock - a.stock || a.price - b.price || a.id - b.id,
    ),
  )
  assert.match(
    sql[0]!,
    /ORDER BY "products"\."stock" DESC, "products"\."price" ASC, "products"\."id" ASC/,
  )
})

test('skips order names outside the identifier grammar', async ({ kernel }) => {
  for (const order of [
    'Price',
    '1price',
    'products.price.x',
    '"price"',
    'price;',
    'pri ce',
    '--price',
  ]) {
    const { body, sql } = await getList(kernel, { ...all, order })
    assert.match(sql[0]!, /ORDER BY "products"\."id" DESC LIMIT/, order)
    assert.equal(
      ids(body),
      expected(() => true),
      order,
    )
  }
})

test('skips order fields outside the whitelist and keeps the others', async ({ kernel }) => {
  const { sql } = await getList(kernel, { order: 'cost,categories.code,-name' })
  assert.match(sql[0]!, /ORDER BY "products"\."name" DESC, "products"\."id" DESC LIMIT/)
  assert.not.match(sql[0]!, /cost|code/)
})

test('falls back to the primary key descending when no order field remains', async ({ kernel }) => {
  for (const params of [{}, { order: '' }, { order: 'bogus,,-' }]) {
    const { body, sql } = await getList(kernel, { ...all, ...params })
    assert.equal(
      ids(body),
      expected(() => true),
    )
    assert.match(sql[0]!, /ORDER BY "products"\."id" DESC LIMIT/)
  }
})

test('sorts by a joined field with or without its table prefix', async ({ kernel }) => {
  const plain = await getList(kernel, { ...all, order: '-title' })
  const prefixed = await getList(kernel, { ...all, order: '-categories.title' })
  assert.equal(ids(plain.body), ids(prefixed.body))
  assert.match(plain.sql[0]!, /ORDER BY "categories"\."title" DESC, "products"\."id" DESC/)
  assert.match(plain.sql[0]!, /LEFT JOIN "categories" AS "categories"/)
})

test('breaks ties with the primary key, so pages never overlap or skip a row', async ({
  kernel,
}) => {
  const seen: number[] = []
  for (let page = 1; page <= 7; page++)
    seen.push(...ids((await getList(kernel, { order: 'active', per_page: 5, page })).body))
  assert.equal(
    seen,
    expected(
      () => true,
      (a, b) => Number(a.active) - Number(b.active) || a.id - b.id,
    ),
  )
})

// fields

test('selects comma-separated fields, adding the primary key without listing it', async ({
  kernel,
}) => {
  const { body, sql } = await getList(kernel, { fields: 'name,sku', per_page: 1 })
  assert.equal(body.fields, ['name', 'sku'])
  assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'sku'])
  assert.match(
    sql[0]!,
    /^SELECT "products"\."id" AS "id", "products"\."name" AS "name", "products"\."sku" AS "sku" FROM/,
  )
})

test('lists the primary key in fields when the caller names it', async ({ kernel }) => {
  const { body } = await getList(kernel, { fields: 'sku,id', per_page: 1 })
  assert.equal(body.fields, ['sku', 'id'])
  assert.equal(Object.keys(body.data[0]!), ['id', 'sku'])
})

test('accepts fields as a URL-encoded JSON array', async ({ kernel }) => {
  const { body } = await getList(kernel, { fields: ['stock', 'active'], per_page: 1 })
  assert.equal(body.fields, ['stock', 'active'])
  assert.equal(Object.keys(body.data[0]!), ['id', 'stock', 'active'])
})

test('accepts fields as an array from code', async ({ kernel }) => {
  const result = await kernel.plugin('list').fetch((await import('./fixtures.js')).products, {
    fields: ['notes', 'title'],
    per_page: 2,
  })
  assert.equal(result.fields, ['notes', 'title'])
  assert.equal(Object.keys(result.data[0]!), ['id', 'notes', 'title'])
})

test('uses the default field set when none is given or none survives, never the schema', async ({
  kernel,
}) => {
  for (const fields of [
    undefined,
    '',
    'cost,Name,users.password_hash,categories.code',
    '[]',
    '[1]',
  ]) {
    const { body, sql } = await getList(
      kernel,
      fields === undefined ? { per_page: 1 } : { fields, per_page: 1 },
    )
    assert.equal(body.fields, ['id', 'name', 'price'], String(fields))
    assert.equal(Object.keys(body.data[0]!), ['id', 'name', 'price'], String(fields))
    assert.not.match(sql[0]!, /cost|password|code|\*/, String(fields))
  }
})

test('accepts a joined field with or without its prefix and answers it without', async ({
  kernel,
}) => {
  for (const fields of [
    'categories.title,products.name',
    'title,name',
    'title,categories.title,name',
  ]) {
    const { body } = await getList(kernel, { fields, order: 'id', per_page: 2 })
    assert.equal(body.fields, ['title', 'name'], fields)
    assert.equal(body.data, [
      { id: 1, title: 'Garden', name: ROWS[0]!.name },
      { id: 2, title: 'Kitchen', name: ROWS[1]!.name },
    ])
  }
})

test('answers values typed as the entity declares them', async ({ kernel }) => {
  const { body } = await getList(kernel, {
    fields: 'price,active,tags,notes,created_at,category_id',
    order: 'id',
    per_page: 1,
  })
  const row = ROWS[0]!
  assert.equal(body.data[0], {
    id: 1,
    price: row.price,
    active: row.active,
    tags: row.tags,
    notes: row.notes,
    created_at: row.created_at,
    category_id: row.category_id,
  })
})

// search

test('searches plain text across every searchable field, ignoring case', async ({ kernel }) => {
  const byName = await getList(kernel, { ...all, search: 'KETTLE' })
  assert.equal(
    ids(byName.body),
    expected((r) => r.name.toLowerCase().includes('kettle')),
  )
  const bySku = await getList(kernel, { ...all, search: 'sku-01' })
  assert.equal(
    ids(bySku.body),
    expected((r) => r.sku.startsWith('SKU-01')),
  )
  assert.match(
    bySku.sql[0]!,
    /\("products"\."name"::text ILIKE \? ESCAPE '\\' OR "products"\."sku"::text ILIKE \? ESCAPE '\\'\)/,
  )
})

test('searches a JSON object of field to term, ANDed, in any whitelisted field', async ({
  kernel,
}) => {
  const { body } = await getList(kernel, {
    ...all,
    search: { name: 'lamp', notes: 'note 1', cost: '1', 'users.password_hash': 'HASH' },
  })
  assert.equal(
    ids(body),
    expected((r) => r.name.toLowerCase().includes('lamp') && (r.notes ?? '').includes('note 1')),
  )
  const bracket = await getList(kernel, 'per_page=500&search[title]=kitch')
  assert.equal(
    ids(bracket.body),
    expected((r) => r.category_id === 3),
  )
})

test('searches an array of terms, each across the searchable fields, ANDed', async ({ kernel }) => {
  const want = expected((r) => r.name.includes('Red') && r.name.includes('Lamp'))
  assert.equal(ids((await getList(kernel, { ...all, search: ['red', 'lamp'] })).body), want)
  assert.equal(ids((await getList(kernel, 'per_page=500&search[]=red&search[]=lamp')).body), want)
})

test('treats %, _ and backslash in a search term literally', async ({ kernel }) => {
  assert.equal(ids((await getList(kernel, { ...all, search: '50%' })).body), [31])
  assert.equal(ids((await getList(kernel, { ...all, search: '_' })).body), [32])
  assert.equal(ids((await getList(kernel, { ...all, search: '\\' })).body), [33])
  assert.equal(ids((await getList(kernel, { ...all, search: '%' })).body), [31])
})

test('ignores a blank search', async ({ kernel }) => {
  for (const search of ['', '   ', '{}', '[]', '[""]']) {
    const { body, sql } = await getList(kernel, { ...all, search })
    assert.is(body.data.length, ROWS.length, search)
    assert.not.match(sql[0]!, /WHERE/, search)
  }
})

// page, per_page

test('pages with page and per_page and reports the pagination object', async ({ kernel }) => {
  const { body, params } = await getList(kernel, { page: 3, per_page: 7, order: 'id' })
  assert.equal(ids(body), [15, 16, 17, 18, 19, 20, 21])
  assert.equal(body.pagination, {
    currentpage: 3,
    itemsperpage: 7,
    totalitems: ROWS.length,
    totalpages: Math.ceil(ROWS.length / 7),
    hasnext: true,
    hasprevious: true,
  })
  assert.equal(params[0], [7, 14], 'limit and offset are bound too')
})

test('clamps per_page into 1…500 and gives junk page and per_page their defaults', async ({
  kernel,
}) => {
  const cases: [Record<string, unknown>, number, number][] = [
    [{}, 1, 20],
    [{ per_page: 100000 }, 1, 500],
    [{ per_page: 0 }, 1, 1],
    [{ per_page: -5 }, 1, 1],
    [{ page: 'abc', per_page: 'x' }, 1, 20],
    [{ page: 0 }, 1, 20],
    [{ page: '2.5', per_page: '1e3' }, 1, 20],
    [{ page: 2, per_page: 10 }, 2, 10],
  ]
  for (const [params, page, perPage] of cases) {
    const { body } = await getList(kernel, params)
    assert.is(body.pagination!.currentpage, page, JSON.stringify(params))
    assert.is(body.pagination!.itemsperpage, perPage, JSON.stringify(params))
  }
})

test('answers an empty page past the end, and one page when nothing matches', async ({
  kernel,
}) => {
  const past = await getList(kernel, { page: 99 })
  assert.equal(past.body.data, [])
  assert.equal(past.body.pagination, {
    currentpage: 99,
    itemsperpage: 20,
    totalitems: ROWS.length,
    totalpages: 2,
    hasnext: false,
    hasprevious: true,
  })
  const none = await getList(kernel, { filter: [{ field: 'stock', op: '>', value: 1000 }] })
  assert.equal(none.body.pagination, {
    currentpage: 1,
    itemsperpage: 20,
    totalitems: 0,
    totalpages: 1,
    hasnext: false,
    hasprevious: false,
  })
})

test('skips the count statement when the page itself tells the total', async ({ kernel }) => {
  const small = await getList(kernel, { per_page: 500 })
  assert.is(small.sql.length, 1)
  assert.is(small.body.pagination!.totalitems, ROWS.length)
  const last = await getList(kernel, { per_page: 10, page: 4 })
  assert.is(last.sql.length, 1)
  assert.is(last.body.pagination!.totalitems, ROWS.length)
  const full = await getList(kernel, { per_page: 10 })
  assert.is(full.sql.length, 2)
  assert.match(full.sql[1]!, /^SELECT count\(\*\) FROM "products"$/)
})

test('counts without the join unless a condition needs it', async ({ kernel }) => {
  const plain = await getList(kernel, { fields: 'title', per_page: 1 })
  assert.not.match(plain.sql[1]!, /JOIN/)
  const joined = await getList(kernel, {
    per_page: 1,
    filter: [{ field: 'title', op: '!=', value: 'Books' }],
  })
  assert.match(joined.sql[1]!, /LEFT JOIN "categories"/)
})

test('lists a table source without an entity, inside its scope', async ({ kernel }) => {
  const { body, sql, params } = await getList(kernel, { order: 'title' }, '/categories')
  assert.equal(body.data, [
    { id: 1, title: 'Books' },
    { id: 2, title: 'Garden' },
  ])
  assert.equal(body.fields, ['title'])
  assert.match(sql[0]!, /WHERE \("categories"\."id" <> \?\)/)
  assert.equal(params[0], [3, 20, 0])
})

test.run()
