import { request as httpRequest } from 'node:http'
import pg from 'pg'
import * as assert from 'uvu/assert'
import { defineMigration, uniqueViolation } from 'fw/plugins/database'
import { PIPES, STALLED_MS } from '../../../plugins/database/pipes.js'
import { databaseSuite, onPostgres } from './fixtures.js'

// Statements of concurrent requests written back to back on few connections (the read pool's
// pipeline mode on PostgreSQL; PGlite runs them one by one on its one connection): each request
// gets its own rows, a failing statement (a constraint, the statement timeout, a request whose
// client went away) fails only its request and the connection goes on serving, and a connection
// the server ends mid-pipeline fails the statements in flight on it with 503 and is replaced.

const migrations = [
  defineMigration({
    name: 'Migration20260101000000_create_tags',
    up: [
      'create table tags (id int primary key, name text not null unique)',
      "insert into tags select n, 'tag ' || n from generate_series(1, 200) n",
    ],
  }),
]

interface Tag {
  id: number
  name: string
}

const test = databaseSuite<{ url: string }>('database pipelining', {
  entities: [],
  migrations,
  config: { database: { statement_timeout: 2 } },
  routes(kernel, db) {
    // Three statements per request, each awaited in turn: the requests' statements interleave.
    kernel.router.get('tag/{id}', async (ctx) => {
      const id = Number(ctx.params.id)
      const [tag] = await db().forRequest(ctx).sql<Tag>`select id, name from tags where id = ${id}`
      const [next] = await db().forRequest(ctx)
        .sql<Tag>`select id, name from tags where id = ${id + 1}`
      const [pid] = await db().forRequest(ctx).sql<{ pid: number }>`select pg_backend_pid() as pid`
      return { tag, next, pid: pid?.pid }
    })
    kernel.router.post('tag/{id}', async (ctx) => {
      try {
        await db().forRequest(ctx)
          .sql`insert into tags (id, name) values (${Number(ctx.params.id)}, 'tag 1')`
        return { inserted: true }
      } catch (error) {
        if (uniqueViolation(error) === undefined) throw error
        return { inserted: false }
      }
    })
    kernel.router.get('sleep/{s}', async (ctx) => {
      const s = Number(ctx.params.s)
      return (await db().forRequest(ctx).sql`select pg_sleep(${s}) is null as slept`)[0]
    })
  },
})

test.before(async (context) => {
  context.url = (await context.kernel.listen(0, '127.0.0.1')).url
})

const json = { accept: 'application/json' }

test('a burst of 200 requests: each gets its own rows, on at most three connections', async ({
  kernel,
}) => {
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) => kernel.inject({ url: `/tag/${i + 1}`, headers: json })),
  )
  const pids = new Set<number>()
  answers.forEach((answer, i) => {
    assert.is(answer.status, 200, answer.body)
    const { tag, next, pid } = answer.json<{ tag: Tag; next: Tag | undefined; pid: number }>()
    assert.equal(tag, { id: i + 1, name: `tag ${i + 1}` })
    if (i < 199) assert.equal(next, { id: i + 2, name: `tag ${i + 2}` })
    pids.add(pid)
  })
  // PGlite has one connection; PostgreSQL's read pool pipelines on at most three.
  assert.ok(pids.size >= 1 && pids.size <= PIPES, `${pids.size} connections`)
})

test('a refused duplicate fails only its request; the others and the next answer', async ({
  kernel,
}) => {
  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      i % 10 === 0
        ? kernel.inject({ method: 'POST', url: '/tag/1000', headers: json })
        : kernel.inject({ url: `/tag/${i}`, headers: json }),
    ),
  )
  answers.forEach((answer, i) => {
    assert.is(answer.status, 200, answer.body)
    if (i % 10 === 0) assert.equal(answer.json(), { inserted: false })
    else assert.is(answer.json<{ tag: Tag }>().tag.id, i)
  })
  assert.is((await kernel.inject({ url: '/tag/7', headers: json })).status, 200)
})

/** A GET on the real socket whose client goes away after `ms`. */
function abandoned(url: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(url)
    req.on('error', () => resolve())
    req.end()
    setTimeout(() => {
      req.destroy()
      resolve()
    }, ms)
  })
}

test('a request whose client went away mid-statement: the connection goes on serving', async ({
  kernel,
  url,
}) => {
  await Promise.all(Array.from({ length: 5 }, () => abandoned(`${url}/sleep/0.3`, 50)))
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => kernel.inject({ url: `/tag/${i + 1}`, headers: json })),
  )
  for (const [i, answer] of answers.entries()) {
    assert.is(answer.status, 200, answer.body)
    assert.is(answer.json<{ tag: Tag }>().tag.id, i + 1)
  }
})

if (onPostgres) {
  // PGlite runs one statement at a time: those behind a slow one wait for it (slow-statement.test.ts).
  test('a statement past the timeout answers 503; those written with it answer 200', async ({
    kernel,
  }) => {
    const slow = kernel.inject({ url: '/sleep/3', headers: json })
    const others = Array.from({ length: 40 }, (_, i) =>
      kernel.inject({ url: `/tag/${i + 1}`, headers: json }),
    )
    const answer = await slow
    assert.is(answer.status, 503, answer.body)
    for (const [i, other] of (await Promise.all(others)).entries()) {
      assert.is(other.status, 200, other.body)
      assert.is(other.json<{ tag: Tag }>().tag.id, i + 1)
    }
    assert.is((await kernel.inject({ url: '/tag/3', headers: json })).status, 200)
  })

  test('a connection ended mid-pipeline: its statements answer 503, the next ones 200', async ({
    kernel,
    db,
  }) => {
    const sleeping = Array.from({ length: 12 }, () =>
      kernel.inject({ url: '/sleep/0.5', headers: json }),
    )
    // From a connection of its own, as an administrator (or a restarting server) would.
    const admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
    try {
      let ended = 0
      for (let tries = 0; ended === 0 && tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        const { rows } = await admin.query<{ ended: boolean }>(
          `select pg_terminate_backend(pid) as ended from pg_stat_activity
           where datname = current_database() and query like '%pg_sleep%' and pid <> pg_backend_pid()`,
        )
        ended = rows.filter((row) => row.ended).length
      }
      assert.ok(ended > 0, 'a pipelined connection was ended')
    } finally {
      await admin.end()
    }
    const statuses = (await Promise.all(sleeping)).map((answer) => answer.status)
    assert.ok(statuses.includes(503), statuses.join(' '))
    assert.ok(
      statuses.every((status) => status === 503 || status === 200),
      statuses.join(' '),
    )
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, i) => kernel.inject({ url: `/tag/${i + 1}`, headers: json })),
    )
    for (const answer of after) assert.is(answer.status, 200, answer.body)
  })

  test('a slow statement on every connection: the next statements open another and answer first', async ({
    kernel,
  }) => {
    const order: string[] = []
    const slow = Array.from({ length: 4 }, () =>
      kernel.inject({ url: '/sleep/1.5', headers: json }).then((answer) => {
        order.push('slow')
        return answer
      }),
    )
    // Well past `STALLED_MS`: every connection's statement is stalled, and a late event loop
    // does not explain it.
    await new Promise((resolve) => setTimeout(resolve, STALLED_MS + 500))
    const fast = await kernel.inject({ url: '/tag/5', headers: json })
    order.push('fast')
    assert.is(fast.status, 200, fast.body)
    for (const answer of await Promise.all(slow)) assert.is(answer.status, 200, answer.body)
    assert.is(order[0], 'fast', order.join(' '))
  })
}

test.run()
