import * as assert from 'uvu/assert'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { json } from 'fw'
import type { DatabaseApi } from 'fw/plugins/database'
import { eventsOf } from 'fw/testing'
import {
  databaseSuite,
  Gadget,
  GadgetSchema,
  gadgetValues,
  LegacyGadget,
  LegacyGadgetSchema,
  migrations,
} from './fixtures.js'

const test = databaseSuite<{ api: DatabaseApi }>('database', {
  entities: [GadgetSchema, LegacyGadgetSchema],
  migrations,
  seed: async (em: EntityManager) => {
    if ((await em.count(Gadget)) > 0) return false
    em.create(Gadget, { ...gadgetValues('Lamp', 19.5), tags: ['home', 'light'] })
    em.create(Gadget, { ...gadgetValues('Desk', 120), active: false, notes: 'oak' })
    await em.flush()
    return true
  },
  routes(kernel) {
    kernel.router
      .get('gadgets/{gadget}', (ctx) =>
        json(kernel.plugin('database').toData(ctx.models.gadget as object)),
      )
      .bind('gadget', 'Gadget')
    kernel.router.get('gadgets', async () => {
      const em = kernel.plugin('database').em()
      const rows = await em.find(Gadget, {}, { orderBy: { id: 'asc' } })
      return rows.map((g) => g.name)
    })
    kernel.router.get('slow', async (ctx) => {
      const em = kernel.plugin('database').em()
      await em.execute('select pg_sleep(0.05)')
      await em.find(Gadget, { name: String(ctx.query.name) })
      return { ok: true }
    })
  },
})

test.before((context) => {
  context.api = context.kernel.plugin('database')
})

test('migrates and seeds once: a second prepare finds nothing to do', async ({ api, prepared }) => {
  assert.equal(prepared, { migrated: ['Migration20261121000000_create_gadgets'], seeded: true })
  const again = await api.prepare()
  assert.equal(again.migrated, [])
  assert.is(again.seeded, false)
  assert.equal(await api.status(), {
    executed: ['Migration20261121000000_create_gadgets'],
    pending: [],
  })
})

test('records each statement as a query event with SQL, parameters, duration and rows', async ({
  kernel,
}) => {
  const res = await kernel.inject('/gadgets')
  assert.equal(res.json(), ['Lamp', 'Desk'])
  const queries = eventsOf(res.events, 'query.executed')
  assert.is(queries.length, 1)
  assert.match(queries[0]!.data.sql, /select .* from "gadgets"/)
  assert.is(queries[0]!.data.rows, 2)
  assert.type(queries[0]!.data.duration, 'number')
  assert.equal(
    eventsOf(res.events, 'model.loaded').map((e) => e.data),
    [
      { entity: 'Gadget', id: 1 },
      { entity: 'Gadget', id: 2 },
    ],
  )
})

test('keeps each request to its own query events when two run at once', async ({ kernel }) => {
  const [a, b] = await Promise.all([
    kernel.inject('/slow?name=Lamp'),
    kernel.inject('/slow?name=Desk'),
  ])
  for (const [res, name] of [
    [a, 'Lamp'],
    [b, 'Desk'],
  ] as const) {
    const queries = eventsOf(res.events, 'query.executed')
    assert.is(queries.length, 2)
    assert.equal(queries[1]!.data.params, [name])
  }
})

test('binds a route parameter to an entity and answers 404 for a missing or malformed id', async ({
  kernel,
}) => {
  const found = await kernel.inject('/gadgets/1')
  assert.is(found.status, 200)
  for (const id of ['999', 'abc', '1e3', '99999999999999999999']) {
    const res = await kernel.inject({
      url: `/gadgets/${id}`,
      headers: { accept: 'application/json' },
    })
    assert.is(res.status, 404, id)
    assert.equal(res.json(), { error: 'not_found' })
  }
})

test("records a binding's one statement and model in the log of the request it loaded for", async ({
  kernel,
}) => {
  const [one, two] = await Promise.all([kernel.inject('/gadgets/1'), kernel.inject('/gadgets/2')])
  for (const [res, id] of [
    [one, 1],
    [two, 2],
  ] as const) {
    assert.is(res.status, 200)
    const queries = eventsOf(res.events, 'query.executed')
    assert.is(queries.length, 1)
    // The key is a bound parameter, never part of the SQL text.
    assert.match(queries[0]!.data.sql, /from "gadgets" where "id" = \? limit 1$/)
    assert.equal(queries[0]!.data.params, [id])
    assert.is(queries[0]!.data.rows, 1)
    assert.equal(
      eventsOf(res.events, 'model.loaded').map((e) => e.data),
      [{ entity: 'Gadget', id }],
    )
  }
})

test('serialises every column, NULLs, booleans and decoded JSON included, and nothing internal', async ({
  kernel,
}) => {
  const lamp = (await kernel.inject('/gadgets/1')).json()
  assert.equal(lamp, {
    id: 1,
    name: 'Lamp',
    price: 19.5,
    active: true,
    tags: ['home', 'light'],
    notes: null,
    createdAt: lamp && (lamp as { createdAt: string }).createdAt,
  })
  assert.match((lamp as { createdAt: string }).createdAt, /^\d{4}-\d\d-\d\dT/)
})

test('includes undeclared own properties, and restores the older shape for an opted-out entity', async ({
  api,
}) => {
  const em = api.em()
  const lamp = (await em.findOneOrFail(Gadget, 1)) as Gadget & { rating?: number }
  lamp.rating = 4
  assert.is(api.toData(lamp).rating, 4)
  const legacy = await em.findOneOrFail(LegacyGadget, 1)
  assert.equal(api.toData(legacy), {
    id: 1,
    name: 'Lamp',
    price: 19.5,
    createdAt: api.toData(legacy).createdAt,
  })
})

test.run()
