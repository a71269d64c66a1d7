import * as assert from 'uvu/assert'
import { databaseSuite } from './fixtures.js'

// A slow statement delays only its own request, on PGlite (which runs in a worker thread,
// pglite-thread.ts) as on PostgreSQL: a request that needs no database answers while it runs.
// Past `database.statement_timeout` the slow request answers 503 with Retry-After (on PGlite the
// client's timeout: PGlite cannot cancel), and the database answers the next statement.

const test = databaseSuite('database: a slow statement', {
  entities: [],
  config: { database: { statement_timeout: 1 } },
  routes(kernel, db) {
    kernel.router.get(
      'slow',
      async () => (await db().sql`select pg_sleep(2.5) is null as slept`)[0],
    )
    kernel.router.get('one', async () => (await db().sql<{ n: number }>`select 1 as n`)[0])
    kernel.router.get('ping', () => 'pong')
  },
})

test('a request without the database answers while a slow statement runs', async ({ kernel }) => {
  const done: string[] = []
  const slow = kernel.inject('/slow').then((res) => {
    done.push('slow')
    return res
  })
  // The slow statement is on its way before the ping is sent.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const ping = await kernel.inject('/ping')
  done.push('ping')
  assert.is(ping.status, 200)
  await slow
  assert.equal(done, ['ping', 'slow'])
})

test('past the statement timeout the request answers 503; the next statement runs', async ({
  kernel,
}) => {
  const slow = await kernel.inject({ url: '/slow', headers: { accept: 'application/json' } })
  assert.is(slow.status, 503, slow.body)
  assert.is(slow.headers['retry-after'], '5')
  // The slow statement ends (PGlite finishes it in its thread) before the next one is sent.
  await new Promise((resolve) => setTimeout(resolve, 2500))
  const one = await kernel.inject({ url: '/one', headers: { accept: 'application/json' } })
  assert.is(one.status, 200, one.body)
  assert.equal(one.json(), { n: 1 })
})

test.run()
