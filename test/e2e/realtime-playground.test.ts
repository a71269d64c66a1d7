// The playground's live products channel on one `fw serve` process, on PGlite or on PostgreSQL
// (DATABASE_URL): 1,000 idle subscribers each get a product created through the API; an
// undeclared channel is refused; a stop ends the open streams cleanly (last: it stops the process).
// test/e2e/realtime-cluster.test.ts covers several instances.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { openEvents, type SseStream } from '../plugins/realtime/sse-client.js'
import { servePlayground, type ServedApp } from './serve-process.js'

interface Context {
  db?: TestDatabase
  app?: ServedApp
}
const test = suite<Context>('realtime playground', {})

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.app = await servePlayground({
    DATABASE_URL: context.db.url,
    NODE_ENV: 'production',
    FW_APP_KEY: 'base64:e2e-realtime-key',
  })
})

test.after(async (context) => {
  await context.app?.stop()
  await context.db?.drop()
})

test('1,000 idle subscribers on one process each get a product created through the API', async ({
  app,
}) => {
  const streams: SseStream[] = []
  try {
    // Opened 100 at a time: a burst of 1,000 connects would overflow the listen backlog.
    for (let i = 0; i < 10; i++)
      streams.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, () => openEvents(`${app!.url}/events/products`)),
        )),
      )
    assert.ok(streams.every((s) => s.status === 200))
    const res = await fetch(`${app!.url}/api/v1/products`, {
      method: 'POST',
      headers: { apikey: 'demo-api-key', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Live', sku: 'LIVE-1000', price: 1, stock: 1 }),
    })
    assert.is(res.status, 201)
    const { id } = (await res.json()) as { id: number }
    const got = await Promise.all(streams.map((s) => s.waitFor(1, 10_000)))
    for (const [event] of got)
      assert.equal([event!.event, JSON.parse(event!.data)], ['created', { id }])
    assert.is(new Set(got.map(([e]) => e!.id)).size, 1)
  } finally {
    for (const s of streams) s.close()
  }
})

test('refuses a channel the playground does not declare, before any stream', async ({ app }) => {
  const res = await fetch(`${app!.url}/events/users`, { headers: { accept: 'application/json' } })
  assert.is(res.status, 404)
  assert.equal(await res.json(), { error: 'unknown_channel', message: 'No such channel.' })
})

test('SIGTERM ends open streams cleanly and the process exits 0 without waiting for them', async ({
  app,
}) => {
  const streams = await Promise.all(
    Array.from({ length: 20 }, () => openEvents(`${app!.url}/events/products`)),
  )
  const exit = app!.stop()
  const ends = await Promise.all(streams.map((s) => s.ended))
  assert.equal(new Set(ends), new Set(['end']))
  assert.ok(streams.every((s) => s.comments.includes('server stopping')))
  assert.is(await exit, 0)
})

test.run()
