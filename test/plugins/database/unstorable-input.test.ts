import * as assert from 'uvu/assert'
import { EntitySchema } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { InjectResponse, Kernel } from 'fw'
import { Migration, type MigrationObject } from 'fw/plugins/database'
import { eventsOf, type MemoryLogger } from 'fw/testing'
import { databaseSuite, Gadget, GadgetSchema, gadgetValues, migrations } from './fixtures.js'

// A NUL character (U+0000) in a bound value is the client's fault: 400 `invalid_input` before the
// statement is sent, through the ORM, the raw path and route binding alike, never the 503 of an
// outage. And the plugin's log lines never carry a statement's values.

/** An entity with a text key: its route binding runs the prepared read (the read pool on PostgreSQL). */
class Label {
  slug!: string
  name!: string
}
const LabelSchema = new EntitySchema<Label>({
  class: Label,
  tableName: 'labels',
  properties: { slug: { type: 'string', primary: true }, name: { type: 'string' } },
})
class CreateLabels extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "labels" ("slug" varchar(64) primary key, "name" text not null)')
    // Raises what reads as an outage (SQLSTATE 57P01, admin_shutdown), quoting its argument as
    // driver messages quote a statement's values.
    this.addSql(`create function fw_test_lost(v text) returns int language plpgsql as $$
      begin raise exception 'connection lost while reading %', v using errcode = '57P01'; end $$`)
  }
}

const allMigrations: MigrationObject[] = [
  ...migrations,
  { name: 'Migration20261121000001_create_labels', class: CreateLabels },
]

const NUL_NAME = 'Lam\u0000p'
const SECRET = 'value-7f3a9c-never-logged'

const test = databaseSuite('database unstorable input', {
  entities: [GadgetSchema, LabelSchema],
  migrations: allMigrations,
  routes(kernel, db) {
    const bodyOf = async (ctx: { body(): Promise<unknown> }) =>
      (await ctx.body()) as { name: string; tags?: unknown[]; doc?: unknown }
    kernel.router.post('orm/find', async (ctx) => {
      const { name } = await bodyOf(ctx)
      return { found: (await db().em().findOne(Gadget, { name })) !== null }
    })
    kernel.router.post('orm/flush', async (ctx) => {
      const { name, tags = [] } = await bodyOf(ctx)
      const em = db().em()
      em.create(Gadget, { ...gadgetValues(name), tags: tags as string[] })
      await em.flush()
      return { ok: true }
    })
    kernel.router.post('orm/execute', async (ctx) => {
      const { name } = await bodyOf(ctx)
      return db().em().execute('select count(*) as n from gadgets where name = ?', [name])
    })
    kernel.router.post('raw', async (ctx) => {
      const { name, doc } = await bodyOf(ctx)
      return db().runStatement({
        sql: 'select ?::text as name, ?::jsonb as doc',
        bindings: [name, doc ?? {}],
      })
    })
    kernel.router.post('sql', async (ctx) => {
      const { name, doc } = await bodyOf(ctx)
      return db().sql`select ${name}::text as name, ${doc ?? {}}::jsonb as doc`
    })
    kernel.router.post('raw/lost', async (ctx) => {
      const { name } = await bodyOf(ctx)
      return db().runStatement({ sql: 'select fw_test_lost(?) as v', bindings: [name] })
    })
    kernel.router.post('orm/lost', async (ctx) => {
      const { name } = await bodyOf(ctx)
      return (db().em() as EntityManager).execute('select fw_test_lost(?) as v', [name])
    })
    kernel.router
      .get('labels/{label}', (ctx) => ({ name: (ctx.models.label as Label).name }))
      .bind('label', 'Label')
  },
})

test.before(async ({ kernel }) => {
  await kernel.plugin('database').runStatement({
    sql: 'insert into labels (slug, name) values (?, ?)',
    bindings: ['home', 'Home'],
  })
})

function post(kernel: Kernel, url: string, body: Record<string, unknown>) {
  return kernel.inject({ method: 'POST', url, body, headers: { accept: 'application/json' } })
}

const INVALID_INPUT = {
  error: 'invalid_input',
  message: 'The request holds a character the database cannot store (NUL, U+0000).',
}

/** 400 `invalid_input`, not the 503 of an outage; the database still counts as ready. */
function assertInvalidInput(kernel: Kernel & { logger: MemoryLogger }, res: InjectResponse) {
  assert.is(res.status, 400, res.body)
  assert.equal(res.json(), INVALID_INPUT)
  // Refused before it was sent: the database failed no statement.
  const failed = eventsOf(res.events, 'query.executed').filter((e) => e.data.failed)
  assert.equal(failed, [], 'no statement reached the database')
  assert.is(res.headers['retry-after'], undefined)
  assert.is(kernel.plugin('database').availability().state, 'ready')
  assert.not.ok(
    kernel.logger.entries.some((e) => e.message === 'database unavailable'),
    'not logged as an outage',
  )
}

test('the ORM: a find, a flush and em.execute with a NUL answer 400 invalid_input', async ({
  kernel,
}) => {
  for (const url of ['orm/find', 'orm/flush', 'orm/execute'])
    assertInvalidInput(kernel, await post(kernel, url, { name: NUL_NAME }))
  // A string inside a JSON column's value.
  assertInvalidInput(kernel, await post(kernel, 'orm/flush', { name: 'ok', tags: ['a\u0000b'] }))
  // Nothing was written, and the same routes still work without the NUL.
  assert.equal((await post(kernel, 'orm/find', { name: 'Lamp' })).json(), { found: false })
  assert.is((await post(kernel, 'orm/flush', { name: 'Lamp', tags: ['x'] })).status, 200)
  assert.equal((await post(kernel, 'orm/find', { name: 'Lamp' })).json(), { found: true })
})

for (const path of ['raw', 'sql']) {
  test(`the raw path (${path}): a NUL, also inside a JSON value, answers 400`, async ({
    kernel,
  }) => {
    assertInvalidInput(kernel, await post(kernel, path, { name: NUL_NAME }))
    assertInvalidInput(kernel, await post(kernel, path, { name: 'ok', doc: { k: ['a\u0000'] } }))
    assertInvalidInput(kernel, await post(kernel, path, { name: 'ok', doc: { 'k\u0000': 1 } }))
    const fine = await post(kernel, path, { name: 'ok', doc: { k: ['x'] } })
    assert.is(fine.status, 200, fine.body)
    assert.equal(fine.json(), [{ name: 'ok', doc: { k: ['x'] } }])
  })
}

test('route binding: a NUL in a text key answers 400 (the prepared read on PostgreSQL)', async ({
  kernel,
}) => {
  assert.equal((await kernel.inject('/labels/home')).json(), { name: 'Home' })
  const res = await kernel.inject({
    url: '/labels/ho%00me',
    headers: { accept: 'application/json' },
  })
  assertInvalidInput(kernel, res)
})

test('outside a request, runStatement and notify reject with the 400 HttpError', async ({
  kernel,
}) => {
  const error = await kernel
    .plugin('database')
    .runStatement({ sql: 'select ?::text as v', bindings: [['a', NUL_NAME]] })
    .then(
      () => undefined,
      (e: unknown) => e as { status?: number; code?: string },
    )
  assert.is(error?.status, 400)
  assert.is(error?.code, 'FW_ERR_DATABASE_INVALID_INPUT')
  // notify(): its confirmed send bypasses the ORM, so it checks its payload itself.
  const notified = await kernel
    .plugin('database')
    .notify('fw_test', NUL_NAME)
    .then(
      () => undefined,
      (e: unknown) => e as { status?: number },
    )
  assert.is(notified?.status, 400)
})

test('the outage warning carries no bound value, from the ORM or the raw path', async ({
  kernel,
}) => {
  for (const url of ['orm/lost', 'raw/lost']) {
    kernel.logger.entries.length = 0
    const res = await post(kernel, url, { name: SECRET })
    assert.is(res.status, 503, res.body)
    assert.not.match(res.body, SECRET)
    const lines = kernel.logger.entries.filter((e) => e.message === 'database unavailable')
    assert.is(lines.length, 1, JSON.stringify(kernel.logger.entries))
    const logged = JSON.stringify(kernel.logger.entries)
    assert.not.match(logged, SECRET)
    assert.not.match(logged, /fw_test_lost/, 'nor the statement')
    // What it says instead: the error's kind and SQLSTATE.
    assert.match(String(lines[0]!.context?.error), /57P01/)
  }
})

test.run()
