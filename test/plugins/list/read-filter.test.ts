// The `filter` rules of plugins/list/README.md "Parameters", through HTTP, on the suite's database
// (PGlite, or PostgreSQL when DATABASE_URL is set: CI runs the suite once on each).
import * as assert from 'uvu/assert'
import { expected, getList, ids, ROWS, type Row, shopSuite } from './fixtures.js'

const test = shopSuite('list filter')

const all = { per_page: 500 }

test('ANDs top-level conditions', async ({ kernel }) => {
  const { body, sql } = await getList(kernel, {
    ...all,
    filter: [
      { field: 'active', op: '=', value: true },
      { field: 'stock', op: '>', value: 10 },
    ],
  })
  assert.equal(
    ids(body),
    expected((r) => r.active && r.stock > 10),
  )
  assert.match(sql[0]!, /WHERE "products"\."active" = \? AND "products"\."stock" > \? ORDER/)
})

test('parenthesises an {or: [...]} group', async ({ kernel }) => {
  const { body, sql } = await getList(kernel, {
    ...all,
    filter: [
      { field: 'active', op: '=', value: true },
      {
        or: [
          { field: 'stock', op: '=', value: 0 },
          { field: 'price', op: '<', value: 5 },
        ],
      },
    ],
  })
  assert.equal(
    ids(body),
    expected((r) => r.active && (r.stock === 0 || r.price < 5)),
  )
  assert.match(
    sql[0]!,
    /"active" = \? AND \("products"\."stock" = \? OR "products"\."price" < \?\)/,
  )
})

test('applies each comparison operator with the value bound', async ({ kernel }) => {
  const cases: [string, (r: Row) => boolean][] = [
    ['=', (r) => r.stock === 10],
    ['!=', (r) => r.stock !== 10],
    ['<>', (r) => r.stock !== 10],
    ['<', (r) => r.stock < 10],
    ['>', (r) => r.stock > 10],
    ['<=', (r) => r.stock <= 10],
    ['>=', (r) => r.stock >= 10],
  ]
  for (const [op, keep] of cases) {
    const { body, sql, params } = await getList(kernel, {
      ...all,
      filter: [{ field: 'stock', op, value: 10 }],
    })
    assert.equal(ids(body), expected(keep), op)
    assert.ok(sql[0]!.includes(`"products"."stock" ${op} ?`), op)
    assert.equal(params[0]!.slice(0, 1), [10], op)
  }
})

test('runs LIKE as ILIKE on PostgreSQL, so it ignores case', async ({ kernel }) => {
  for (const op of ['LIKE', 'ILIKE', 'like']) {
    const { body, sql } = await getList(kernel, {
      ...all,
      filter: [{ field: 'name', op, value: '%LAMP%' }],
    })
    assert.equal(
      ids(body),
      expected((r) => r.name.toLowerCase().includes('lamp')),
      op,
    )
    assert.match(sql[0]!, /"products"\."name"::text ILIKE \?/, op)
  }
})

test('binds every member of an IN or NOT IN list', async ({ kernel }) => {
  const inList = await getList(kernel, {
    ...all,
    filter: [{ field: 'id', op: 'IN', value: [3, 1, 5, "7'; drop table products; --"] }],
  })
  assert.is(inList.status, 400, 'a member the column cannot hold fails in the database')
  const ok = await getList(kernel, {
    ...all,
    filter: [{ field: 'id', op: 'in', value: [3, 1, 5] }],
  })
  assert.equal(ids(ok.body), [5, 3, 1])
  assert.match(ok.sql[0]!, /"products"\."id" IN \(\?, \?, \?\)/)
  assert.equal(ok.params[0]!.slice(0, 3), [3, 1, 5])
  const notIn = await getList(kernel, {
    ...all,
    filter: [{ field: 'category_id', op: 'NOT IN', value: [1, 2] }],
  })
  assert.equal(
    ids(notIn.body),
    expected((r) => r.category_id === 3),
  )
})

test('drops an IN (or NOT IN) with an empty list', async ({ kernel }) => {
  for (const op of ['IN', 'NOT IN']) {
    const { body, sql } = await getList(kernel, {
      ...all,
      filter: [{ field: 'id', op, value: [] }],
    })
    assert.is(body.data.length, ROWS.length, op)
    assert.not.match(sql[0]!, /WHERE/, op)
  }
})

test('turns = null into IS NULL and != null into IS NOT NULL', async ({ kernel }) => {
  const isNull = await getList(kernel, {
    ...all,
    filter: [{ field: 'notes', op: '=', value: null }],
  })
  assert.equal(
    ids(isNull.body),
    expected((r) => r.notes === null),
  )
  assert.match(isNull.sql[0]!, /WHERE "products"\."notes" IS NULL ORDER/)
  for (const op of ['!=', '<>']) {
    const notNull = await getList(kernel, { ...all, filter: [{ field: 'notes', op, value: null }] })
    assert.equal(
      ids(notNull.body),
      expected((r) => r.notes !== null),
      op,
    )
  }
  const ordered = await getList(kernel, {
    ...all,
    filter: [{ field: 'notes', op: '<', value: null }],
  })
  assert.not.match(ordered.sql[0]!, /WHERE/, 'null with another operator is dropped')
})

test('applies IS NULL and IS NOT NULL, ignoring any value', async ({ kernel }) => {
  const a = await getList(kernel, {
    ...all,
    filter: [{ field: 'category_id', op: 'IS NULL', value: 'ignored' }],
  })
  assert.equal(
    ids(a.body),
    expected((r) => r.category_id === null),
  )
  assert.equal(a.params[0], [500, 0])
  const b = await getList(kernel, { ...all, filter: [{ field: 'category_id', op: 'is not null' }] })
  assert.equal(
    ids(b.body),
    expected((r) => r.category_id !== null),
  )
})

test('silently drops unknown fields, unknown operators and malformed entries', async ({
  kernel,
}) => {
  const { status, body, sql } = await getList(kernel, {
    ...all,
    filter: [
      { field: 'cost', op: '>', value: 0 },
      { field: 'users.password_hash', op: '=', value: 'x' },
      { field: 'name', op: 'REGEXP', value: '.' },
      { field: 'name', op: '= 1 OR 1=1 --', value: 'x' },
      { field: 'name' },
      { field: 'name', op: '=', value: { $ne: 1 } },
      { field: 'name', op: '=', value: ['a'] },
      'junk',
      42,
      null,
      { op: '=', value: 1 },
      { or: [] },
      { or: [{ field: 'cost', op: '=', value: 1 }] },
    ],
  })
  assert.is(status, 200)
  assert.is(body.data.length, ROWS.length)
  assert.not.match(sql[0]!, /WHERE/)
  for (const filter of ['not json', '{"field":', '"string"', '7', '[[[]]]']) {
    const res = await getList(kernel, { ...all, filter })
    assert.is(res.body.data.length, ROWS.length, filter)
  }
})

test('reads a filter written with query-string brackets', async ({ kernel }) => {
  const { body } = await getList(
    kernel,
    'per_page=500&filter[0][field]=stock&filter[0][op]=>&filter[0][value]=20&filter[1][or][0][field]=active&filter[1][or][0][op]==&filter[1][or][0][value]=false',
  )
  assert.equal(
    ids(body),
    expected((r) => r.stock > 20 && !r.active),
  )
})

test('filters on a joined field with or without its table prefix', async ({ kernel }) => {
  for (const field of ['title', 'categories.title']) {
    const { body } = await getList(kernel, {
      ...all,
      filter: [{ field, op: '=', value: 'Garden' }],
    })
    assert.equal(
      ids(body),
      expected((r) => r.category_id === 2),
      field,
    )
  }
})

test.run()
