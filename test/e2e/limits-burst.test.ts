import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client } from 'pg'
import { servePlaygrounds, type PlaygroundCluster, type ServedApp } from './serve-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

// A burst of 100 requests to a rate-limited route, split over two `fw serve` processes on one
// PostgreSQL database: the limiter counts in the shared table, one atomic statement a hit, so
// exactly its 10 points get through whichever process answers (10 points are too few to lease).
// Then waves on a limiter of 200 points, which the processes lease: never more than 200 pass, and
// once both have stopped (giving back what they leased and did not spend) the table counts every
// request made. PGlite belongs to one process, so
// this suite exists only on the PostgreSQL pass (DATABASE_URL=postgresql://…; CI runs it); the
// one-process burst on either database is in test/plugins/limits/stores.test.ts.
const test = suite<{ cluster?: PlaygroundCluster }>('limits burst', {})
const app = fileURLToPath(new URL('fixtures/limited-app.ts', import.meta.url))

test.after(async (context) => {
  await context.cluster?.close()
})

if (onPostgres) {
  test('lets exactly 10 of 100 concurrent requests through over two processes', async (context) => {
    context.cluster = await servePlaygrounds(2, { FW_APP: app })
    const [first, second] = context.cluster.apps as [ServedApp, ServedApp]
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => fetch(`${(i % 2 === 0 ? first : second).url}/limited`)),
    )
    const statuses = replies.map((r) => r.status)
    assert.is(statuses.filter((s) => s === 200).length, 10, statuses.join(' '))
    assert.is(statuses.filter((s) => s === 429).length, 90)
    const refused = replies.find((r) => r.status === 429)!
    assert.is(refused.headers.get('ratelimit-policy'), '"burst";q=10;w=60')
    assert.match(refused.headers.get('ratelimit') ?? '', /^"burst";r=0;t=\d+$/)
    assert.is(
      refused.headers.get('retry-after'),
      /t=(\d+)/.exec(refused.headers.get('ratelimit')!)![1],
    )
  })

  test('leases over two processes: never more than points pass; stopped, every request is counted', async (context) => {
    const { apps, db } = context.cluster!
    const [first, second] = apps
    let passed = 0
    for (let wave = 0; wave < 8; wave++) {
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          fetch(`${(i % 2 === 0 ? first! : second!).url}/leased`),
        ),
      )
      passed += replies.filter((r) => r.status === 200).length
      assert.ok(passed <= 200, `wave ${wave}: ${passed} passed`)
      assert.ok(replies.every((r) => r.status === 200 || r.status === 429))
    }
    // At most one lease per process is left unspent, each under an eighth of 200.
    assert.ok(passed > 200 - 2 * 25, `${passed} passed`)
    await Promise.all(apps.map((served) => served.stop()))
    const client = new Client({ connectionString: db.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ hits: number }>(
        `select hits from fw_rate_limits where key like 'lease:%'`,
      )
      assert.equal(rows, [{ hits: 480 }])
    } finally {
      await client.end()
    }
  })
}

test.run()
