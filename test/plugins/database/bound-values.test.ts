import * as assert from 'uvu/assert'
import { databaseSuite, oneTable } from './fixtures.js'

// Every statement of the ORM's reaches the database with its values as bound parameters, never
// as SQL text (bound-execute.ts), and answers the same on PGlite and PostgreSQL: a `;`, a quote or
// `$$` in a value is a value, a statement without values may hold `;` in its literals or be
// several statements (pglite-statements.ts on the in-process PGlite).

class Note {
  id!: number
  body!: string
  meta!: Record<string, unknown>
  at!: Date
}

const notes = oneTable(Note, 'notes', {
  body: ['text', 'text not null'],
  meta: ['json', 'jsonb not null'],
  at: ['datetime', 'timestamptz not null'],
})

interface Sent {
  sql: string
  bindings: unknown[]
}

const test = databaseSuite<{ sent: Sent[] }>('database: bound values', notes)

test.before(async (context) => {
  context.sent = []
  const knex = context.kernel.plugin('database').em().getKnex()
  knex.on('query', (query: Sent) => context.sent.push({ sql: query.sql, bindings: query.bindings }))
})

const TRICKY = "semi;colon 'quoted' $$dollar$$ back\\slash ?mark"

test('em.execute sends its values as parameters and answers one result', async ({
  kernel,
  sent,
}) => {
  sent.length = 0
  const rows = await kernel.plugin('database').em().execute('select ? as v, ? as n', [TRICKY, 2])
  assert.equal(rows, [{ v: TRICKY, n: '2' }])
  assert.is(sent.length, 1)
  assert.not.ok(sent[0]!.sql.includes('semi;colon'), sent[0]!.sql)
  assert.equal(sent[0]!.bindings, [TRICKY, 2])
})

test('a flush and a find bind their values; what was stored reads back as written', async ({
  kernel,
  sent,
}) => {
  const em = kernel.plugin('database').em()
  const at = new Date('2026-03-04T05:06:07.089Z')
  sent.length = 0
  const note = em.create(Note, { body: TRICKY, meta: { k: TRICKY, list: [';', "'"] }, at })
  await em.flush()
  assert.ok(sent.length > 0)
  for (const { sql } of sent) assert.not.ok(sql.includes('semi;colon'), sql)
  const found = await kernel
    .plugin('database')
    .em()
    .findOneOrFail(Note, { body: TRICKY, id: { $in: [note.id, 0] } })
  assert.is(found.body, TRICKY)
  assert.equal(found.meta, { k: TRICKY, list: [';', "'"] })
  assert.is(found.at.toISOString(), at.toISOString())
})

test('a statement without values holding ; in a literal answers its one result', async ({
  kernel,
}) => {
  const rows = await kernel.plugin('database').em().execute("select 'a;b' as v")
  assert.equal(rows, [{ v: 'a;b' }])
})

test('a statement without values may still be several statements (as migrations are)', async ({
  kernel,
}) => {
  const em = kernel.plugin('database').em()
  await em.execute(
    "insert into notes (body, meta, at) values ('x;1', '{}', now()); delete from notes where body = 'x;1'",
  )
  assert.equal(await em.execute("select count(*)::int as n from notes where body = 'x;1'"), [
    { n: 0 },
  ])
})

test.run()
