import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { servePlaygrounds, type PlaygroundCluster, type ServedApp } from './serve-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

// A burst of wrong passwords for one user, split over two playground processes on one
// PostgreSQL database: every attempt reserves its lockout slot in the shared table before its
// password is checked, so exactly 3 are checked (401) and the rest, and then the right password,
// answer 429. PGlite belongs to one process, so this suite exists only on the PostgreSQL pass
// (DATABASE_URL=postgresql://…; CI runs it). The one-process burst is in test/plugins/auth/.
const test = suite<{ cluster?: PlaygroundCluster }>('lockout burst', {})

test.after(async (context) => {
  await context.cluster?.close()
})

function login(app: ServedApp, username: string, password: string): Promise<Response> {
  return fetch(`${app.url}/account/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
}

if (onPostgres) {
  test('checks 3 of 100 concurrent wrong passwords over two processes; the right one gets 429', async (context) => {
    context.cluster = await servePlaygrounds(2, { FW_APP_KEY: 'base64:e2e-lockout-burst-key' })
    const [first, second] = context.cluster.apps as [ServedApp, ServedApp]
    // Warm both processes (connections, routes) on another user, so the burst races for real.
    for (const app of [first, second])
      assert.is((await login(app, 'user', 'user-pass')).status, 200)

    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        login(i % 2 === 0 ? first : second, 'admin', `wrong-${i}`),
      ),
    )
    const statuses = replies.map((r) => r.status)
    const unauthorized = statuses.filter((s) => s === 401).length
    const locked = statuses.filter((s) => s === 429).length
    assert.is(unauthorized, 3, `${unauthorized} wrong passwords were checked:\n${first.output()}`)
    assert.is(locked, 97)

    for (const app of [first, second]) {
      const right = await login(app, 'admin', 'admin-pass')
      assert.is(right.status, 429)
      const body = (await right.json()) as { error: string; retry_after: number }
      assert.is(body.error, 'too_many_attempts')
      assert.ok(body.retry_after > 0 && body.retry_after <= 60)
      assert.is(right.headers.get('retry-after'), String(body.retry_after))
    }
  })
}

test.run()
