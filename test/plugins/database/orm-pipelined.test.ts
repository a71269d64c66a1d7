import * as assert from 'uvu/assert'
import { eventsOf } from 'fw/testing'
import { PIPES } from '../../../plugins/database/pipes.js'
import {
  databaseSuite,
  Gadget,
  GadgetSchema,
  gadgetValues,
  migrations,
  onPostgres,
} from './fixtures.js'

// The ORM's reads outside a transaction go to the read pool on PostgreSQL, pipelined with the
// other requests' statements on its few connections; what a transaction runs stays on its own
// connection of knex's pool. Each request gets its own entities, and its `query.executed` events
// as before. On PGlite (one connection, no read pool) the same requests answer the same.

const test = databaseSuite('database: the ORM reads pipelined', {
  entities: [GadgetSchema],
  migrations,
  routes(kernel, db) {
    kernel.router.get('gadgets/{id}', async (ctx) => {
      const em = db().forRequest(ctx).em()
      const gadget = await em.findOneOrFail(Gadget, { id: Number(ctx.params.id) })
      const [row] = await em.execute<{ pid: number }[]>('select pg_backend_pid() as pid')
      return { name: gadget.name, pid: row?.pid }
    })
    kernel.router.get('in-transaction', async (ctx) =>
      db()
        .forRequest(ctx)
        .em()
        .transactional(async (em) => {
          const [row] = await em.execute<{ pid: number }[]>('select pg_backend_pid() as pid')
          return { pid: row?.pid }
        }),
    )
  },
})

test.before(async ({ kernel }) => {
  const db = () => kernel.plugin('database')
  const em = db().em()
  for (let i = 1; i <= 100; i++) em.create(Gadget, gadgetValues(`gadget ${i}`))
  await em.flush()
})

const json = { accept: 'application/json' }

test('a burst of 100 requests: each finds its own entity; reads share at most three connections', async ({
  kernel,
}) => {
  const answers = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      kernel.inject({ url: `/gadgets/${i + 1}`, headers: json }),
    ),
  )
  const pids = new Set<number>()
  answers.forEach((answer, i) => {
    assert.is(answer.status, 200, answer.body)
    const body = answer.json<{ name: string; pid: number }>()
    assert.is(body.name, `gadget ${i + 1}`)
    const queries = eventsOf(answer.events, 'query.executed')
    assert.is(queries.length, 2)
    assert.match(queries[0]!.data.sql, /select .* from "gadgets"/)
    assert.is(queries[0]!.data.rows, 1)
    pids.add(body.pid)
  })
  assert.ok(pids.size >= 1 && pids.size <= PIPES, `${pids.size} connections`)
  if (onPostgres) {
    // A transaction runs on a connection of its own, never one of the read pool's.
    const inTransaction = await kernel.inject({ url: '/in-transaction', headers: json })
    assert.is(inTransaction.status, 200, inTransaction.body)
    assert.not.ok(pids.has(inTransaction.json<{ pid: number }>().pid))
  }
})

test.run()
