import { createHook } from 'node:async_hooks'
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import database, {
  createTestDatabase,
  isUnavailableError,
  StatementError,
  type TestDatabase,
} from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import { STALLED_MS } from '../../../plugins/database/pipes.js'
import { onPostgres } from './fixtures.js'

// The read pool under bursts: statements pipelined on its connections all run, each answering its
// own value (on PGlite, which has no read pool, on its one connection); on PostgreSQL, once every
// one of its ten connections is held by a stalled statement, one that waits past
// `database.acquire_timeout` fails as an unavailable database (503 in a request) while the others
// go on.

const test = suite<{ db: TestDatabase; kernel: Kernel }>('database read pool')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test.before(async (context) => {
  context.db = await createTestDatabase()
  const kernel = createTestKernel({
    config: { database: { acquire_timeout: 1, statement_timeout: 30 } },
    plugins: [[database, { url: context.db.url, entities: [] }]],
  })
  const db = () => kernel.plugin('database')
  kernel.router.get('one', async (ctx) => db().forRequest(ctx).sql`select 1 as one`)
  await kernel.boot()
  await db().ready()
  context.kernel = kernel
})

test.after(async ({ kernel, db }) => {
  await kernel.close()
  await db.drop()
})

test('a burst of 300 statements: each answers its own value', async ({ kernel }) => {
  const db = kernel.plugin('database')
  const answers = await Promise.all(
    Array.from(
      { length: 300 },
      (_, i) => db.sql<{ n: number }>`select ${i}::int as n, pg_sleep(0.001)::text as slept`,
    ),
  )
  answers.forEach((rows, i) => assert.equal(rows[0]?.n, i))
})

test('failing statements in a burst fail alone: the others, and the pool after, answer', async ({
  kernel,
}) => {
  const db = kernel.plugin('database')
  // Every seventh divides by zero (22012) while others wait for its connection.
  const answers = await Promise.allSettled(
    Array.from(
      { length: 140 },
      (_, i) => db.sql<{ n: number }>`select ${i}::int / ${i % 7 === 0 ? 0 : 1}::int as n`,
    ),
  )
  answers.forEach((answer, i) => {
    if (i % 7 === 0) {
      assert.is(answer.status, 'rejected')
      const error = (answer as PromiseRejectedResult).reason as StatementError
      assert.instance(error, StatementError)
      assert.is(error.failure.sqlState, '22012')
    } else assert.equal(answer.status === 'fulfilled' && answer.value[0]?.n, i)
  })
  const after = await Promise.all(
    Array.from({ length: 20 }, (_, i) => db.sql<{ n: number }>`select ${i}::int as n`),
  )
  after.forEach((rows, i) => assert.equal(rows[0]?.n, i))
})

if (onPostgres) {
  test('a statement waiting past the acquire timeout fails as unavailable; the rest go on', async ({
    kernel,
    db: testDb,
  }) => {
    const db = kernel.plugin('database')
    let slept = 0
    const sleeps: Promise<number>[] = []
    // One after another, each once the others run on the server and are stalled (`STALLED_MS`):
    // each opens a connection of its own, up to the pool's ten. A sleep written behind another
    // instead (this process was late, see `choose`) runs later; another is sent until ten run.
    const admin = new pg.Client({ connectionString: testDb.url })
    await admin.connect()
    let running = 0
    try {
      for (const deadline = Date.now() + 12_000; running < 10 && Date.now() < deadline;) {
        sleeps.push(db.sql`select pg_sleep(15)::text as slept`.then(() => slept++))
        // Well past `STALLED_MS`, so that a late event loop does not explain the stall.
        await sleep(STALLED_MS + 400)
        const { rows } = await admin.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and state = 'active' and query like '%pg_sleep(15)%'
             and pid <> pg_backend_pid()`,
        )
        running = rows[0]?.n ?? 0
      }
    } finally {
      await admin.end()
    }
    assert.is(running, 10, 'ten connections, each running a sleep')
    const waiting = await Promise.allSettled([
      db.sql`select 1 as late`,
      db.sql`select 2 as late`,
      kernel.inject('/one'),
    ])
    assert.is(slept, 0, 'the waits ended before any connection was free')
    for (const outcome of waiting.slice(0, 2)) {
      assert.is(outcome.status, 'rejected')
      const reason = (outcome as PromiseRejectedResult).reason as unknown
      assert.instance(reason, StatementError)
      assert.ok(isUnavailableError(reason), String(reason))
    }
    const answer = (waiting[2] as PromiseFulfilledResult<Awaited<ReturnType<Kernel['inject']>>>)
      .value
    assert.is(answer.status, 503, answer.body)
    assert.ok(answer.headers['retry-after'] !== undefined)
    await Promise.all(sleeps)
    assert.is(slept, sleeps.length)
    // The pool is whole again: a statement runs at once.
    assert.equal(await db.sql`select 3 as after`, [{ after: 3 }])
    assert.is((await kernel.inject('/one')).status, 200)
  })

  test('statements one after another reuse an idle connection: no timer armed per statement', async ({
    kernel,
  }) => {
    const db = kernel.plugin('database')
    await db.sql`select 0 as warm`
    let timers = 0
    const hook = createHook({
      init(_id, type) {
        if (type === 'Timeout') timers++
      },
    }).enable()
    try {
      for (let i = 0; i < 100; i++) assert.equal(await db.sql`select ${i}::int as n`, [{ n: i }])
    } finally {
      hook.disable()
    }
    // Through pg's pool each statement armed two: its acquire timeout on checkout, its idle
    // timeout on release. The idle sweep and the statement timeout arm one at most each.
    assert.ok(timers <= 4, `${timers} timers for 100 statements`)
  })

  test('an idle connection the server ends is dropped; the next statement answers', async ({
    kernel,
    db: testDb,
  }) => {
    const db = kernel.plugin('database')
    const [idle] = await db.sql<{ pid: number }>`select pg_backend_pid() as pid`
    // From a connection of its own, as an administrator (or a restarting server) would.
    const admin = new pg.Client({ connectionString: testDb.url })
    await admin.connect()
    try {
      await admin.query('select pg_terminate_backend($1)', [idle!.pid])
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query('select 1 from pg_stat_activity where pid = $1', [
          idle!.pid,
        ])
        if (rows.length === 0) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      await admin.end()
    }
    // The client hears the end of its connection on its socket, after the server is done with it.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const after = await Promise.all(
      Array.from({ length: 12 }, () => db.sql<{ pid: number }>`select pg_backend_pid() as pid`),
    )
    for (const [row] of after) assert.is.not(row?.pid, idle!.pid)
  })
}

test.run()
