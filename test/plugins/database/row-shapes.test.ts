import pg from 'pg'
import * as assert from 'uvu/assert'
import { sql, type DatabaseApi } from 'fw/plugins/database'
import { databaseSuite, onPostgres } from './fixtures.js'

// On PostgreSQL the plugin's reads build their rows from one template per statement
// (plugins/database/row-shapes.ts) instead of node-pg's own: the rows must be node-pg's all the
// same. The same expectations hold on PGlite, whose rows are built by PGlite.

const test = databaseSuite('database rows', { entities: [] })

/**
 * node-pg's own rows for `text`, on a client of its own with the settings (and the type parsers)
 * MikroORM gives knex's connections and the read pool's: what the plugin's rows must equal.
 */
async function nodePgRows(fw: DatabaseApi, text: string, values: unknown[] = []) {
  const settings = (fw.em().getKnex().client as { connectionSettings: pg.ClientConfig })
    .connectionSettings
  const client = new pg.Client(settings)
  await client.connect()
  try {
    return (await client.query(text, values)).rows as Record<string, unknown>[]
  } finally {
    await client.end()
  }
}

test('a column named __proto__ is a column, not the row prototype, run after run', async ({
  kernel,
}) => {
  const db = kernel.plugin('database')
  for (let run = 0; run < 3; run++) {
    const [row] = await db.sql`select ${run}::int as "__proto__", 'b' as b`
    assert.ok(row)
    assert.is(Object.getPrototypeOf(row), Object.prototype)
    assert.equal(Object.keys(row), ['__proto__', 'b'])
    assert.is(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, run)
    assert.is(JSON.stringify(row), `{"__proto__":${run},"b":"b"}`)
  }
})

test('a name given twice keeps its first place and its last value', async ({ kernel }) => {
  const [row] = await kernel.plugin('database').sql`select 1 as a, 2 as b, 3 as a`
  assert.equal(Object.keys(row!), ['a', 'b'])
  assert.equal(row, { a: 3, b: 2 })
})

test('every row of a statement holds its own values; nulls stay null', async ({ kernel }) => {
  const db = kernel.plugin('database')
  for (let run = 0; run < 2; run++) {
    const rows = await db.sql<{ n: number; t: string | null }>`
      select g as n, case when g % 3 = 0 then null else g::text end as t
      from generate_series(1, ${50 + run}) as g`
    assert.is(rows.length, 50 + run)
    rows.forEach((row, i) => {
      assert.equal(row, { n: i + 1, t: (i + 1) % 3 === 0 ? null : String(i + 1) })
    })
  }
})

test('long statements (kept by their columns, not their text) answer their own columns', async ({
  kernel,
}) => {
  const db = kernel.plugin('database')
  // A thousand bound values: the text is over 4 kB, as a batch insert `returning` is.
  const ids = sql.join(Array.from({ length: 1000 }, (_, i) => sql`${i + 1}::int`))
  for (let run = 0; run < 2; run++) {
    const numbers = await db.query(
      sql`select g as n from generate_series(1, 3) as g where g in (${ids})`,
    )
    assert.ok(
      sql`select g as n from generate_series(1, 3) as g where g in (${ids})`.text.length > 4096,
    )
    assert.equal(numbers, [{ n: 1 }, { n: 2 }, { n: 3 }])
    const named = await db.query(
      sql`select g as n, 'x' || g as label from generate_series(1, 2) as g where g in (${ids})`,
    )
    assert.equal(named, [
      { n: 1, label: 'x1' },
      { n: 2, label: 'x2' },
    ])
  }
})

test('a statement whose columns changed answers its new columns', async ({ kernel }) => {
  const db = kernel.plugin('database')
  await db.runStatement({
    sql: 'create table shapes (id integer primary key, name text)',
    bindings: [],
  })
  await db.runStatement({ sql: "insert into shapes values (1, 'one')", bindings: [] })
  // A fragment makes the statement unnamed (parsed on every run), so its columns may change.
  const all = () => db.query(sql`select * from ${sql.identifier('shapes')}`)
  assert.equal(await all(), [{ id: 1, name: 'one' }])
  await db.runStatement({ sql: 'alter table shapes add column size integer', bindings: [] })
  await db.runStatement({ sql: 'alter table shapes drop column name', bindings: [] })
  const [row] = await all()
  assert.equal(Object.keys(row!), ['id', 'size'])
  assert.equal(row, { id: 1, size: null })
})

if (onPostgres) {
  test('the rows equal node-pg’s own, value for value, type for type', async ({ kernel }) => {
    const text = `select 1::int4 as int, 9007199254740993::int8 as big, 1.50::numeric as num,
      true as bool, 'x'::text as text, '{"a":[1,2]}'::jsonb as json, array[1,2]::int[] as ints,
      '2026-11-27T10:00:00Z'::timestamptz as at, null::text as missing, 'é'::varchar as accent,
      3 as "__proto__"`
    const fw = kernel.plugin('database')
    const expected = await nodePgRows(fw, text)
    assert.is(expected.length, 1)
    // The first run makes the statement's template, the second copies it.
    for (let run = 0; run < 2; run++) {
      for (const rows of [
        // The read pool (a named statement, then an unnamed one).
        await fw.query({ text, sql: text, values: [], name: 'fw_shapes_types' }),
        await fw.query({ text, sql: text, values: [], name: undefined }),
        // MikroORM, through knex's connections.
        await fw.em().getConnection().execute(text),
        // A transaction's connection.
        await fw.em().transactional((em) => fw.runStatement({ sql: text, bindings: [] }, em)),
      ]) {
        assert.equal(rows, expected)
        assert.equal(Object.keys(rows[0]!), Object.keys(expected[0]!))
        assert.is(Object.getPrototypeOf(rows[0]), Object.prototype)
      }
    }
  })

  test('bound values reach PostgreSQL as node-pg sends them, named or not', async ({ kernel }) => {
    const text = `select $1::bytea as bytes, $2::timestamptz as at, $3::int[] as ints,
      $4::jsonb as json, $5::text as missing, $6::text as accent, $7::int8 as big, $8::bool as yes`
    const values = [
      Buffer.from([0, 1, 2, 255]),
      new Date('2026-11-27T10:00:00Z'),
      [1, null, 3],
      { a: [1, 'é'] },
      null,
      'é😀',
      9007199254740993n.toString(),
      true,
    ]
    const fw = kernel.plugin('database')
    const expected = await nodePgRows(fw, text, values)
    for (let run = 0; run < 2; run++)
      for (const name of ['fw_shapes_values', undefined])
        assert.equal(await fw.query({ text, sql: text, values, name }), expected)
  })

  test('a type parser that throws fails its statement alone; the next ones answer', async ({
    kernel,
  }) => {
    const fw = kernel.plugin('database')
    const POINT = 600 as (typeof pg.types.builtins)[keyof typeof pg.types.builtins]
    const original = pg.types.getTypeParser(POINT, 'text')
    pg.types.setTypeParser(POINT, () => {
      throw new Error('no points here')
    })
    try {
      const [failed, ...answered] = await Promise.allSettled([
        fw.sql`select ${'(1,2)'}::point as p`,
        ...Array.from({ length: 20 }, (_, i) => fw.sql<{ n: number }>`select ${i}::int as n`),
      ])
      assert.is(failed!.status, 'rejected')
      assert.equal(
        answered.map((r) => (r.status === 'fulfilled' ? r.value[0]!.n : r.reason)),
        Array.from({ length: 20 }, (_, i) => i),
      )
    } finally {
      pg.types.setTypeParser(POINT, original)
    }
    assert.equal(await fw.sql`select ${'(1,2)'}::point as p`, [{ p: { x: 1, y: 2 } }])
  })
}

test.run()
