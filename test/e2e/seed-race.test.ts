import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import pg from 'pg'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { servePlayground } from './serve-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

// Several processes starting at once against one PostgreSQL database must migrate and seed
// exactly once. PGlite is single-process, so this suite exists only on the PostgreSQL pass
// (DATABASE_URL=postgresql://…; CI runs that pass).
const test = suite<{ db?: TestDatabase }>('seed-race')

async function count(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return Number((await client.query(sql)).rows[0].n)
  } finally {
    await client.end()
  }
}

test.after(async (context) => {
  await context.db?.drop()
})

if (onPostgres) {
  test('migrates and seeds once when three playground processes start together on one database', async (context) => {
    const db = (context.db = await createTestDatabase())
    const env = { DATABASE_URL: db.url, NODE_ENV: 'production' }
    const apps = await Promise.all([
      servePlayground(env),
      servePlayground(env),
      servePlayground(env),
    ])
    try {
      for (const app of apps) {
        const res = await fetch(`${app.url}/api/v1/products/1`, {
          headers: { accept: 'application/json', apikey: 'demo-api-key' },
        })
        assert.is(res.status, 200, app.output())
        // Listening means migrated: each is ready for traffic.
        const ready = await fetch(`${app.url}/health/ready`)
        assert.equal(await ready.json(), { status: 'ready' })
      }
      assert.is(await count(db.url, 'select count(*) as n from users'), 4)
      assert.is(await count(db.url, 'select count(*) as n from products'), 1000)
      assert.is(await count(db.url, 'select count(*) as n from categories'), 10)
      // The playground's, the auth plugin's, the jobs plugin's queue tables, the imports' table.
      assert.is(await count(db.url, 'select count(*) as n from fw_migrations'), 4)
    } finally {
      const codes = await Promise.all(apps.map((app) => app.stop()))
      assert.equal(codes, [0, 0, 0])
    }
  })
}

test.run()
