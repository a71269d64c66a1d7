import * as assert from 'uvu/assert'
import { currentContext } from 'fw'
import { eventsOf } from 'fw/testing'
import { databaseSuite, Gadget, GadgetSchema, gadgetValues, migrations } from './fixtures.js'

// `requestScope: false` with `db.forRequest(ctx)`: the request handed over instead of found through
// the kernel's request scope. Statements, models and transactions still belong to their request
// after an `await`, and to no other request, while the scope itself stays off.

const tick = () => new Promise((resolve) => setTimeout(resolve, 1))

const test = databaseSuite('database without the request scope', {
  entities: [GadgetSchema],
  migrations,
  requestScope: false,
  routes(kernel, db) {
    kernel.router.get('named/{name}', async (ctx) => {
      await tick()
      const rows = await db().forRequest(ctx).sql<{
        id: number
      }>`select id from gadgets where name = ${ctx.params.name} order by id`
      // A second statement, after another wait: still this request's.
      await tick()
      await db()
        .forRequest(ctx)
        .runStatement({ sql: 'select ? as again', bindings: [ctx.params.name] })
      return { ids: rows.map((row) => row.id), scoped: currentContext() !== undefined }
    })
    kernel.router.post('gadgets', async (ctx) => {
      await tick()
      const em = db().forRequest(ctx).em()
      const gadget = em.create(Gadget, gadgetValues(String(ctx.query.name), 3))
      await em.flush()
      return { id: gadget.id, same: db().forRequest(ctx).em() === em }
    })
    kernel.router.post('inside', async (ctx) => {
      await tick()
      return db()
        .forRequest(ctx)
        .em()
        .transactional(async (tx) => {
          tx.create(Gadget, gadgetValues('Uncommitted'))
          await tx.flush()
          const [seen] = await db().forRequest(ctx).sql<{
            n: string
          }>`select count(*) as n from gadgets where name = ${'Uncommitted'}`
          throw Object.assign(new Error('roll back'), { seen: Number(seen!.n) })
        })
        .catch((error: { seen?: number }) => ({ seen: error.seen }))
    })
  },
})

test.before(async ({ kernel }) => {
  const db = () => kernel.plugin('database')
  for (const name of ['Lamp', 'Desk'])
    await db().sql`insert into gadgets (name, price, active, tags, created_at)
      values (${name}, ${10}, ${true}, ${'[]'}, ${new Date('2026-01-02T03:04:05Z')})`
})

test('the scope is off; forRequest(ctx) still records every statement in its request', async ({
  kernel,
}) => {
  const res = await kernel.inject('/named/Lamp')
  assert.is(res.status, 200, res.body)
  assert.equal(res.json(), { ids: [1], scoped: false }, 'no request is found after an await')
  assert.equal(
    eventsOf(res.events, 'query.executed').map((e) => e.data.params),
    [['Lamp'], ['Lamp']],
  )
})

test('a burst of requests: each request’s log holds its own statements and no other', async ({
  kernel,
}) => {
  const names = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 'Lamp' : `none-${i}`))
  const answers = await Promise.all(names.map((name) => kernel.inject(`/named/${name}`)))
  answers.forEach((res, i) => {
    assert.is(res.status, 200, res.body)
    assert.equal(
      eventsOf(res.events, 'query.executed').map((e) => e.data.params),
      [[names[i]], [names[i]]],
    )
  })
})

test('the request’s EntityManager: one per request, its statements and models recorded', async ({
  kernel,
}) => {
  const res = await kernel.inject({ method: 'POST', url: '/gadgets?name=Shelf' })
  assert.is(res.status, 200, res.body)
  const body = res.json() as { id: number; same: boolean }
  assert.ok(body.id > 2)
  assert.is(body.same, true)
  assert.equal(
    eventsOf(res.events, 'model.created').map((e) => e.data),
    [{ entity: 'Gadget', id: body.id }],
  )
  assert.ok(
    eventsOf(res.events, 'query.executed').some((e) => /insert into "gadgets"/.test(e.data.sql)),
    'the flush’s insert is in the request’s log',
  )
})

test('inside em.transactional, forRequest(ctx).sql runs in the transaction', async ({ kernel }) => {
  const res = await kernel.inject({ method: 'POST', url: '/inside' })
  assert.equal(res.json(), { seen: 1 })
  assert.equal((await kernel.inject('/named/Uncommitted')).json(), { ids: [], scoped: false })
})

test.run()
