import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { Kernel } from 'fw'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import logging from 'fw/plugins/logging'
import { createTestKernel } from 'fw/testing'
import { GadgetSchema, migrations } from './fixtures.js'

// A statement the database refuses fails the request (500), and every report of it (the log
// file's `request failed` line with its stack, the `exception.raised` event that telemetry and the
// toolbar project) names the error by kind, SQLSTATE and what failed, never by the driver's
// message, which quotes the bound value (MikroORM inlines it into the SQL; the database's own
// words repeat it: `invalid input syntax for type integer: "…"`).

const SECRET = 'value-5d1e07-never-reported'

const test = suite<{ db: TestDatabase; kernel: Kernel; lines: string[] }>(
  'database driver errors in reports',
)

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.lines = []
  const kernel = createTestKernel({
    plugins: [
      [logging, { destination: { write: (line: string) => void context.lines.push(line) } }],
      [database, { url: context.db.url, entities: [GadgetSchema], migrations }],
    ],
  })
  const db = () => kernel.plugin('database')
  kernel.router.get('raw', () =>
    db().runStatement({ sql: 'select ?::int as n', bindings: [SECRET] }),
  )
  kernel.router.get('sql', () => db().sql`select ${SECRET}::int as n`)
  kernel.router.get('orm', () =>
    (db().em() as EntityManager).execute('select ?::int as n', [SECRET]),
  )
  kernel.router.get('orm/insert', async () => {
    await (db().em() as EntityManager).execute(
      'insert into gadgets (name, price, active, tags, created_at) values (?, ?, true, ?, now())',
      [SECRET, 'not-a-price', '[]'],
    )
    return { ok: true }
  })
  await kernel.boot()
  await kernel.plugin('database').prepare()
  context.kernel = kernel
})

test.after(async ({ kernel, db }) => {
  await kernel.close()
  await db.drop()
})

for (const path of ['raw', 'sql', 'orm', 'orm/insert']) {
  test(`${path}: the refusal is reported by kind and SQLSTATE, without the bound value`, async ({
    kernel,
    lines,
  }) => {
    const before = lines.length
    const res = await kernel.inject({ url: `/${path}`, headers: { accept: 'application/json' } })
    assert.is(res.status, 500)
    assert.not.match(res.body, SECRET)
    const written = lines.slice(before).join('')
    assert.match(written, 'request failed')
    assert.match(written, '22P02', 'the SQLSTATE is reported')
    assert.not.match(written, SECRET)
    const raised = res.events.filter((e) => e.type === 'exception.raised')
    assert.is(raised.length, 1)
    const { message } = raised[0]!.data as { message: string }
    assert.match(message, '22P02')
    assert.not.match(message, SECRET)
  })
}

test.run()
