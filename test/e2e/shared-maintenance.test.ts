// Maintenance across machines: two `fw serve` processes of one app, each with its own root (as on
// two machines), on one PostgreSQL database. `fw down` run against one root puts both in
// maintenance (the state in the database, announced with NOTIFY), `fw up` against the other
// brings both back; no flag file is written. On PGlite (one process per database) the flag file
// is the mechanism: `fw down` and `fw up` against the root of the one instance.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from '../cli/temp-app.js'
import { servePlayground, type ServedApp } from './serve-process.js'

const test = suite<{ db?: TestDatabase; apps: TempApp[]; served: ServedApp[] }>(
  'maintenance across instances',
)

/** An app with the database and health plugins, its root a temp dir of its own. */
function app(): TempApp {
  return createTempApp({
    preamble: `import database from ${JSON.stringify(import.meta.resolve('fw/plugins/database'))}
import health from ${JSON.stringify(import.meta.resolve('fw/plugins/health'))}`,
    setup: `  kernel.register(database, { url: env?.DATABASE_URL ?? process.env.DATABASE_URL, entities: [] })
  kernel.register(health, { diskSpace: false, memoryLimit: false, cache: false })`,
  })
}
import { onPostgres } from '../fixtures/on-postgres.js'

test.before(async (context) => {
  context.db = onPostgres ? await createTestDatabase() : undefined
  const count = onPostgres ? 2 : 1
  context.apps = Array.from({ length: count }, app)
  context.served = []
  for (const a of context.apps)
    context.served.push(
      await servePlayground({
        ...a.env,
        NODE_ENV: 'production',
        DATABASE_URL: context.db?.url ?? `pglite://${join(a.root, 'db')}`,
      }),
    )
})

test.after(async ({ served, apps, db }) => {
  await Promise.all(served.map((s) => s.stop()))
  for (const a of apps) a.remove()
  await db?.drop()
})

/** Polls `GET /hello` until it answers `status`; the milliseconds that took. */
async function until(url: string, status: number, ms = 5000): Promise<number> {
  const started = performance.now()
  for (;;) {
    const res = await fetch(`${url}/hello`, { headers: { accept: 'application/json' } })
    await res.arrayBuffer()
    if (res.status === status) return performance.now() - started
    if (performance.now() - started > ms) throw new Error(`${url} still answers ${res.status}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

test('fw down on one root takes every instance down, fw up on another brings all back', async ({
  apps,
  served,
  db,
}) => {
  for (const s of served) await until(s.url, 200)
  const env = (a: TempApp) => ({
    ...a.env,
    DATABASE_URL: db?.url ?? `pglite://${join(a.root, 'db')}`,
  })
  const down = await runCli(['down', '--retry=42'], { env: env(apps[0]!) })
  assert.is(down.code, 0, down.stderr)
  for (const s of served) {
    const took = await until(s.url, 503, 2000)
    assert.ok(took < 1000, `503 within a second (${Math.round(took)} ms)`)
    console.log(
      `  maintenance (${onPostgres ? 'PostgreSQL' : 'PGlite'}): 503 after ${Math.round(took)} ms`,
    )
    const res = await fetch(`${s.url}/hello`, { headers: { accept: 'application/json' } })
    assert.is(res.headers.get('retry-after'), '42')
    assert.equal(await res.json(), { error: 'maintenance', retry_after: 42 })
  }
  if (onPostgres) {
    assert.is(
      down.stdout,
      "The app is down for maintenance on every instance (state in the database); clients are told to retry after 42 s. Run 'fw up' to bring it back.\n",
    )
    for (const a of apps) assert.not.ok(existsSync(join(a.root, 'var', 'MAINTENANCE')))
  } else assert.ok(existsSync(join(apps[0]!.root, 'var', 'MAINTENANCE')))
  const up = await runCli(['up'], { env: env(apps.at(-1)!) })
  assert.is(up.code, 0, up.stderr)
  if (onPostgres)
    assert.is(up.stdout, 'The app is up again on every instance (state in the database).\n')
  for (const s of served) assert.ok((await until(s.url, 200, 2000)) < 1000)
})

test('readiness answers 200 on every instance while it serves', async ({ served }) => {
  for (const s of served) {
    const res = await fetch(`${s.url}/health/ready`)
    assert.is(res.status, 200)
    assert.equal(await res.json(), { status: 'ready' })
  }
})

test.run()
