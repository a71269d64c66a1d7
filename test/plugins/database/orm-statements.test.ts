import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { json, type Kernel } from 'fw'
import database, {
  createTestDatabase,
  isUnavailableError,
  type TestDatabase,
} from 'fw/plugins/database'
import type { SqlEntityManager } from '@mikro-orm/knex'
import { createTestKernel } from 'fw/testing'
import { startTcpProxy, type TcpProxy } from '../../e2e/tcp-proxy.js'
import { Gadget, GadgetSchema, gadgetValues, migrations, onPostgres } from './fixtures.js'
import { closeAfterEach } from '../../fixtures/app-suite.js'

// MikroORM's statements on PostgreSQL (the database plugin's README, "Bounded waits"): one timer
// for every statement in flight rather than one armed per statement, by node-pg for the statement
// timeout or by knex's pool for the acquire timeout; a statement a frozen server never answers
// fails as unavailable within `database.statement_timeout`, its connection closed rather than
// handed to the next statement; connections kept between statements go back to knex's pool once
// unused. Only PostgreSQL has a client side to time out and a pool (PGlite runs in the process on
// one connection): there, a burst of writes and reads shows the statements run as before.

interface Context {
  db?: TestDatabase
  proxy?: TcpProxy
  kernel?: Kernel
}
const test = suite<Context>('database ORM statements', {})

closeAfterEach(test, 'kernel', 'proxy', 'db')

/** A kernel on `url` with a read (`GET /gadgets/{id}`) and a write (`POST /gadgets`) through the ORM. */
async function gadgetKernel(
  context: Context,
  url: string,
  timeouts: { acquire_timeout: number; statement_timeout: number },
): Promise<Kernel> {
  const kernel = (context.kernel = createTestKernel({
    config: { database: timeouts },
    plugins: [[database, { url, entities: [GadgetSchema], migrations }]],
  }))
  const db = () => kernel.plugin('database')
  kernel.router.get('gadgets/{id}', async (ctx) => {
    const gadget = await db()
      .em()
      .findOne(Gadget, { id: Number(ctx.params.id) })
    return { found: gadget !== null }
  })
  kernel.router.post('gadgets', async () => {
    const em = db().em()
    const gadget = em.create(Gadget, gadgetValues('lamp'))
    await em.flush()
    return json({ id: gadget.id }, 201)
  })
  await kernel.boot()
  await db().prepare()
  return kernel
}

/** Counts the timers armed with each of `delays` while `run` runs. */
async function timersOf(delays: readonly number[], run: () => Promise<void>): Promise<number[]> {
  const original = globalThis.setTimeout
  const armed = delays.map(() => 0)
  globalThis.setTimeout = ((callback: () => void, delay?: number) => {
    const i = delays.indexOf(delay ?? 0)
    if (i !== -1) armed[i]!++
    return original(callback, delay)
  }) as typeof setTimeout
  try {
    await run()
  } finally {
    globalThis.setTimeout = original
  }
  return armed
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('a burst of ORM writes and reads: each answers its own, every row is stored', async (context) => {
  const db = (context.db = await createTestDatabase())
  const kernel = await gadgetKernel(context, db.url, { acquire_timeout: 5, statement_timeout: 5 })
  const stored = await Promise.all(
    Array.from({ length: 60 }, () => kernel.inject({ method: 'POST', url: '/gadgets' })),
  )
  const ids = stored.map((answer) => {
    assert.is(answer.status, 201, answer.body)
    return (answer.json() as { id: number }).id
  })
  assert.is(new Set(ids).size, 60)
  const found = await Promise.all(ids.map((id) => kernel.inject(`/gadgets/${id}`)))
  for (const answer of found) assert.equal(answer.json(), { found: true })
  const [row] = await kernel.plugin('database').sql<{ count: number }>`
    select count(*)::int as count from gadgets`
  assert.is(row?.count, 60)
})

if (onPostgres) {
  test('ORM statements arm no timer each: one for the statements in flight, none to take a connection', async (context) => {
    const db = (context.db = await createTestDatabase())
    // 7 s and 3 s: delays nothing else in the process arms.
    const kernel = await gadgetKernel(context, db.url, { acquire_timeout: 3, statement_timeout: 7 })
    const write = () => kernel.inject({ method: 'POST', url: '/gadgets' })
    // One after another: each takes the connection the last one left.
    const [statement, acquire] = await timersOf([7000, 3000], async () => {
      for (let i = 0; i < 20; i++) {
        const stored = await write()
        assert.is(stored.status, 201, stored.body)
        const { id } = stored.json() as { id: number }
        assert.equal((await kernel.inject(`/gadgets/${id}`)).json(), { found: true })
      }
    })
    // 80 statements in 40 acquires (a write is three statements on one connection: begin,
    // insert, commit): node-pg's own statement timeout armed a timer per statement, knex's pool
    // one per acquire.
    assert.ok(statement! <= 1, `${statement} timers of the statement timeout for 80 statements`)
    assert.ok(acquire! <= 1, `${acquire} timers of the acquire timeout for 40 acquires`)
    // A burst, more statements at once than connections: they wait in knex's pool (its timers),
    // still under one timer for the statement timeout.
    const [inBurst] = await timersOf([7000], async () => {
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => kernel.plugin('database').em().findOne(Gadget, i)),
      )
    })
    assert.ok(inBurst! <= 1, `${inBurst} timers of the statement timeout for 30 statements at once`)
  })

  test("connections kept between statements go back to knex's pool once a period left them unused", async (context) => {
    const db = (context.db = await createTestDatabase())
    const kernel = await gadgetKernel(context, db.url, { acquire_timeout: 3, statement_timeout: 5 })
    await Promise.all(Array.from({ length: 5 }, () => kernel.inject('/gadgets/1')))
    const pool = (kernel.plugin('database').orm.em as SqlEntityManager).getKnex().client.pool as {
      numUsed(): number
      numFree(): number
    }
    // Kept by fw, they count as used in knex's pool; after two sweeps (1 s each) none is.
    assert.ok(pool.numUsed() > 0, 'kept between statements')
    await until(() => pool.numUsed() === 0, 4000)
    assert.ok(pool.numFree() > 0)
    assert.is((await kernel.inject('/gadgets/1')).status, 200)
  })

  test('a kept connection the server ends is not handed out again: the next statements answer', async (context) => {
    const db = (context.db = await createTestDatabase())
    const kernel = await gadgetKernel(context, db.url, { acquire_timeout: 3, statement_timeout: 5 })
    const em = () => kernel.plugin('database').em()
    const pidOf = async () =>
      (
        (await em().getConnection().execute('select pg_backend_pid() as pid')) as { pid: number }[]
      )[0]!.pid
    const kept = await pidOf()
    // From a connection of its own, as an administrator (or a restarting server) would.
    const admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
    try {
      await admin.query('select pg_terminate_backend($1)', [kept])
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query('select 1 from pg_stat_activity where pid = $1', [kept])
        if (rows.length === 0) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      await admin.end()
    }
    // The client hears the end of its connection on its socket, after the server is done with it.
    await new Promise((resolve) => setTimeout(resolve, 50))
    for (let i = 0; i < 5; i++) assert.is.not(await pidOf(), kept)
    assert.is((await kernel.inject('/gadgets/1')).status, 200)
  })

  test('a frozen server: an ORM read and write answer 503 within the timeout, their connections are closed, and they answer again once it is back', async (context) => {
    const db = (context.db = await createTestDatabase())
    const direct = new URL(db.url)
    const proxy = (context.proxy = await startTcpProxy({
      host: direct.hostname,
      port: Number(direct.port || 5432),
    }))
    direct.host = `127.0.0.1:${proxy.port}`
    const kernel = await gadgetKernel(context, direct.toString(), {
      acquire_timeout: 1,
      statement_timeout: 1,
    })
    const write = () => kernel.inject({ method: 'POST', url: '/gadgets' })
    assert.is((await write()).status, 201)

    for (const [what, run] of [
      ['read', () => kernel.inject('/gadgets/1')],
      ['write', write],
    ] as const) {
      await proxy.set('freeze')
      const ended = proxy.endedByApp
      const started = performance.now()
      const answer = await run()
      const ms = performance.now() - started
      assert.is(answer.status, 503, `${what}: ${answer.body}`)
      assert.is((answer.json() as { error: string }).error, 'unavailable')
      // The statement's second, and at most a second's wait for a connection: never longer.
      assert.ok(ms < 3000, `${what} answered in ${ms.toFixed(0)} ms`)
      // The connection it ran on is given up, not kept for the next statement.
      await until(() => proxy.endedByApp > ended)
      await proxy.set('pass')
      const again = await run()
      assert.is(again.status, what === 'read' ? 200 : 201, `${what} after: ${again.body}`)
    }
    // Outside a request, the ORM's own error says the same: the statement's timeout, or (a read
    // goes to the read pool, whose connection the frozen read closed) the opening's.
    await proxy.set('freeze')
    const failure = await kernel
      .plugin('database')
      .em()
      .findOne(Gadget, 1)
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    assert.ok(isUnavailableError(failure), String(failure))
    assert.match(String(failure), /Query read timeout|timeout exceeded when trying to connect/)
    await proxy.set('pass')
  })
}

test.run()
