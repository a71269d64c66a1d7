import * as assert from 'uvu/assert'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { json } from 'fw'
import database, { sql } from 'fw/plugins/database'
import { createTestKernel, eventsOf } from 'fw/testing'
import { databaseSuite, Gadget, GadgetSchema, gadgetValues, migrations } from './fixtures.js'

// The fast read path: the `sql` tagged template (values always bound, never SQL text), `query()`,
// transactions joined, events recorded; and route bindings that fork no EntityManager for a read
// while writes to the bound model keep the ORM's semantics.

interface Named {
  id: number
  name: string
}

const test = databaseSuite('database sql', {
  entities: [GadgetSchema],
  migrations,
  routes(kernel, db) {
    kernel.router.get('by-name', async (ctx) => {
      const rows = await db()
        .sql<Named>`select id, name from gadgets where name = ${String(ctx.query.name)} order by id`
      return rows.map((row) => `${row.id}:${row.name}`)
    })
    kernel.router.get('some', async (ctx) => {
      const ids = String(ctx.query.ids).split(',').map(Number)
      const column = sql.identifier('name')
      return db().query(
        sql<Named>`select id, ${column} from gadgets where id in (${sql.join(ids)}) order by id`,
      )
    })
    kernel.router
      .get('gadgets/{gadget}', (ctx) => ({
        ...db().toData(ctx.models.gadget as object),
        forked: ctx.state.em !== undefined,
      }))
      .bind('gadget', 'Gadget')
    kernel.router
      .get('gadgets/{gadget}/json', (ctx) => json(ctx.models.gadget))
      .bind('gadget', 'Gadget')
    kernel.router
      .post('gadgets/{gadget}/rename', async (ctx) => {
        const gadget = ctx.models.gadget as Gadget
        // Changed before the request has an EntityManager: the flush still finds the change.
        gadget.name = String(ctx.query.name)
        await (db().em() as EntityManager).flush()
        return { same: db().em().getReference(Gadget, gadget.id) === gadget }
      })
      .bind('gadget', 'Gadget')
    kernel.router
      .post('gadgets/{gadget}/assign', async (ctx) => {
        const em = db().em() as EntityManager
        em.assign(ctx.models.gadget as Gadget, { price: Number(ctx.query.price) })
        await em.flush()
        return { ok: true }
      })
      .bind('gadget', 'Gadget')
    kernel.router
      .post('gadgets/{gadget}/delete', async (ctx) => {
        const em = db().em() as EntityManager
        em.remove(ctx.models.gadget as Gadget)
        await em.flush()
        return { ok: true }
      })
      .bind('gadget', 'Gadget')
    kernel.router.post('inside', async () => {
      const em = db().em() as EntityManager
      return em
        .transactional(async (tx) => {
          tx.create(Gadget, gadgetValues('Uncommitted'))
          await tx.flush()
          const joined = await db().sql<{
            n: string
          }>`select count(*) as n from gadgets where name = ${'Uncommitted'}`
          const explicit = await db().query(
            sql<{ n: string }>`select count(*) as n from gadgets where name = ${'Uncommitted'}`,
            tx,
          )
          // Rolled back: the rows above were seen inside the transaction only.
          throw Object.assign(new Error('roll back'), {
            seen: [Number(joined[0]!.n), Number(explicit[0]!.n)],
          })
        })
        .catch((error: { seen?: number[] }) => ({ seen: error.seen }))
    })
  },
})

test.before(async ({ kernel }) => {
  const db = () => kernel.plugin('database')
  for (const name of ['Lamp', 'Desk', 'Chair'])
    await db().sql`insert into gadgets (name, price, active, tags, created_at)
      values (${name}, ${10}, ${true}, ${'[]'}, ${new Date('2026-01-02T03:04:05Z')})`
})

test('sql builds $n placeholders and bound values; a template is prepared under one name', () => {
  const at = (id: number) => sql`select * from gadgets where id = ${id} and name <> ${'x'}`
  const one = at(1)
  assert.is(one.text, 'select * from gadgets where id = $1 and name <> $2')
  assert.is(one.sql, 'select * from gadgets where id = ? and name <> ?')
  assert.equal(one.values, [1, 'x'])
  assert.match(String(one.name), /^fw_[0-9a-f]{16}$/)
  assert.is(at(2).name, one.name)
  const nested = sql`select ${sql.identifier('weird"name')} from t where a = ${1} and ${sql`b = ${2} or c in (${sql.join([3, 4])})`}`
  assert.is(nested.text, 'select "weird""name" from t where a = $1 and b = $2 or c in ($3, $4)')
  assert.equal(nested.values, [1, 2, 3, 4])
  assert.is(nested.name, undefined, 'a statement with fragments is not named')
})

test('an injection attempt through the template is a value: inert', async ({ kernel }) => {
  for (const evil of [
    "Lamp' or '1'='1",
    "x'; drop table gadgets; --",
    'Lamp" or 1=1 --',
    '$1',
    '?',
  ]) {
    const res = await kernel.inject(`/by-name?name=${encodeURIComponent(evil)}`)
    assert.is(res.status, 200, res.body)
    assert.equal(res.json(), [], evil)
    const [event] = eventsOf(res.events, 'query.executed')
    assert.is(event?.data.sql, 'select id, name from gadgets where name = ? order by id')
    assert.equal(event?.data.params, [evil])
  }
  // The table is still there and answers the plain value.
  assert.equal((await kernel.inject('/by-name?name=Lamp')).json(), ['1:Lamp'])
})

test('query runs a built statement: fragments, identifiers, typed rows', async ({ kernel }) => {
  const res = await kernel.inject('/some?ids=1,3')
  assert.is(res.status, 200, res.body)
  assert.equal(res.json(), [
    { id: 1, name: 'Lamp' },
    { id: 3, name: 'Chair' },
  ])
  assert.equal(eventsOf(res.events, 'query.executed')[0]?.data.params, [1, 3])
})

test('inside em.transactional, sql and query(…, em) run in the transaction', async ({ kernel }) => {
  const res = await kernel.inject({ method: 'POST', url: '/inside' })
  assert.equal(res.json(), { seen: [1, 1] })
  assert.equal((await kernel.inject('/by-name?name=Uncommitted')).json(), [])
})

test('a bound model for a read forks no EntityManager; its data and JSON are the ORM’s', async ({
  kernel,
}) => {
  const res = await kernel.inject('/gadgets/2')
  assert.is(res.status, 200, res.body)
  const body = res.json() as Record<string, unknown>
  assert.equal(body, {
    id: 2,
    name: 'Desk',
    price: 10,
    active: true,
    tags: [],
    notes: null,
    createdAt: '2026-01-02T03:04:05.000Z',
    forked: false,
  })
  assert.equal(
    eventsOf(res.events, 'model.loaded').map((e) => e.data),
    [{ entity: 'Gadget', id: 2 }],
  )
  // MikroORM's own serialisation goes through the entity's ORM state: adopted, same data.
  const viaOrm = await kernel.inject('/gadgets/2/json')
  const { forked: _forked, ...data } = body
  assert.equal(viaOrm.json(), data)
  assert.is((await kernel.inject('/gadgets/999')).status, 404)
})

test('writes to a bound model keep the ORM semantics: change, assign, remove', async ({
  kernel,
}) => {
  const renamed = await kernel.inject({ method: 'POST', url: '/gadgets/3/rename?name=Stool' })
  assert.equal(renamed.json(), { same: true }, 'the model is the identity map’s entity')
  assert.is(eventsOf(renamed.events, 'model.updated').length, 1)
  const assigned = await kernel.inject({ method: 'POST', url: '/gadgets/3/assign?price=42.5' })
  assert.is(assigned.status, 200, assigned.body)
  const after = (await kernel.inject('/gadgets/3')).json() as { name: string; price: number }
  assert.equal([after.name, after.price], ['Stool', 42.5])
  const deleted = await kernel.inject({ method: 'POST', url: '/gadgets/3/delete' })
  assert.is(deleted.status, 200, deleted.body)
  assert.is((await kernel.inject('/gadgets/3')).status, 404)
})

test('outside a request, sql runs too; before the database opened it rejects', async () => {
  const kernel = createTestKernel({
    plugins: [[database, { url: 'pglite://memory', entities: [GadgetSchema], migrations }]],
  })
  await kernel.boot()
  try {
    const early = await kernel.plugin('database').sql`select 1 as n`.then(
      () => undefined,
      (e: { code?: string }) => e.code,
    )
    assert.is(early, 'FW_ERR_DATABASE_NOT_READY')
    await kernel.plugin('database').ready()
    assert.equal(await kernel.plugin('database').sql<{ n: number }>`select ${1}::int as n`, [
      { n: 1 },
    ])
  } finally {
    await kernel.close()
  }
})

test.run()
