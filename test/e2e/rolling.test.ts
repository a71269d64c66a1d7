// Scale-out: three `fw serve` processes of one app, each with its own root (three machines), behind
// HAProxy configured as docs/deploying.md says (`option httpchk GET /health/ready`, checks every
// 200 ms, out after 2 failures, back after 2 successes, the default retries and redispatch), each
// started with `--shutdown-delay 1`. Sixteen keep-alive clients loop GETs through HAProxy while
// the instances are restarted one after another (SIGTERM, exit, start again on the same port,
// HAProxy sees it UP, the next): no request may fail. On PostgreSQL the instances share one
// database and the loaded route reads it; on PGlite (one process per database) the app has no
// database and the route is a plain one. Then maintenance: `fw down` answers 503 everywhere within
// a second, `fw up` brings everything back. (A token revoked through one instance is refused by
// the others at once: test/e2e/revocation.test.ts proves it with two processes on PostgreSQL.)
import { existsSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { runCli } from 'fw/testing'
import { HAPROXY, startCluster, startLoad, type Cluster } from './rolling-cluster.js'
import { onPostgres } from '../fixtures/on-postgres.js'

const dbName = onPostgres ? 'PostgreSQL' : 'PGlite'

const test = suite<{ db?: TestDatabase; cluster?: Cluster }>('rolling restart behind HAProxy')

test.before(async (context) => {
  if (!existsSync(HAPROXY)) throw new Error(`${HAPROXY} is missing: apt-get install -y haproxy`)
  context.db = onPostgres ? await createTestDatabase() : undefined
  context.cluster = await startCluster({
    count: 3,
    shutdownDelay: 1,
    databaseUrl: context.db?.url,
  })
})

test.after(async ({ cluster, db }) => {
  await cluster?.stop()
  await db?.drop()
})

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

test('a rolling restart under keep-alive load through HAProxy fails no request', async ({
  cluster,
}) => {
  const c = cluster!
  const load = startLoad(c.url, c.path, 16)
  const countersBefore = await c.counters()
  try {
    await sleep(1000)
    load.phase('before')
    await sleep(1500)
    load.phase('during')
    for (let i = 0; i < c.instances.length; i++) {
      const t = await c.restart(i)
      assert.is(t.exitCode, 0, `instance ${i + 1} exits 0 after SIGTERM`)
      console.log(
        `  fw${i + 1}: SIGTERM → exit ${Math.round(t.stop)} ms, start ${Math.round(t.start)} ms, UP in HAProxy after ${Math.round(t.up)} ms`,
      )
    }
    load.phase('after')
    await sleep(1500)
  } finally {
    const phases = await load.stop()
    const figures = ['before', 'during', 'after'].map((name) => {
      const p = phases.get(name) ?? { ok: 0, failed: 0, ms: 0 }
      return `${name} ${p.ok} ok/${p.failed} failed in ${(p.ms / 1000).toFixed(1)} s (${Math.round(p.ok / (p.ms / 1000))} req/s)`
    })
    console.log(
      `  rolling (${dbName}, 16 keep-alive clients through HAProxy): ${figures.join('; ')}`,
    )
    const after = await c.counters()
    console.log(
      `  HAProxy: ${after.retries - countersBefore.retries} retries, ${after.redispatches - countersBefore.redispatches} redispatches, ${after.connectErrors - countersBefore.connectErrors} failed connects, ${after.http5xx - countersBefore.http5xx} 5xx`,
    )
    const failed = [...phases.values()].reduce((n, p) => n + p.failed, 0)
    assert.is(failed, 0, `failed requests:\n${load.failures.join('\n')}`)
    for (const name of ['before', 'during', 'after'])
      assert.ok((phases.get(name)?.ok ?? 0) > 0, `requests answered ${name}`)
  }
  assert.equal(await c.states(), ['UP', 'UP', 'UP'])
})

/** Polls `url` until it answers `status`; the milliseconds that took. */
async function until(url: string, status: number, ms: number): Promise<number> {
  const started = performance.now()
  for (;;) {
    const res = await fetch(url, { headers: { accept: 'application/json' } })
    await res.arrayBuffer()
    if (res.status === status) return performance.now() - started
    if (performance.now() - started > ms) throw new Error(`${url} still answers ${res.status}`)
    await sleep(10)
  }
}

test('fw down reaches every instance and HAProxy within a second; fw up brings them back', async ({
  cluster,
  db,
}) => {
  const c = cluster!
  const env = (i: number) => ({
    ...c.instances[i]!.app.env,
    ...(db ? { DATABASE_URL: db.url } : {}),
  })
  // On PostgreSQL one `fw down` reaches every instance; without a shared database each root has
  // its flag file, so each gets its own.
  const roots = onPostgres ? [0] : c.instances.map((_, i) => i)
  for (const i of roots) {
    const down = await runCli(['down', '--retry=5'], { env: env(i) })
    assert.is(down.code, 0, down.stderr)
  }
  const urls = [c.url, ...c.instances.map((i) => i.served.url)].map((u) => `${u}${c.path}`)
  const took = await Promise.all(urls.map((u) => until(u, 503, 3000)))
  console.log(
    `  maintenance (${dbName}): 503 after ${took.map((t) => Math.round(t)).join(', ')} ms (HAProxy, fw1, fw2, fw3)`,
  )
  for (const t of took) assert.ok(t < 1000, `503 within a second (${Math.round(t)} ms)`)
  // The probes answer during maintenance: HAProxy keeps every server in, and passes fw's own 503
  // (with its Retry-After) on, rather than its own page.
  await sleep(600)
  const states = await c.states()
  console.log(`  HAProxy in maintenance: ${states.join(', ')}`)
  assert.ok(
    states.every((s) => s.includes('UP')),
    states.join(', '),
  )
  const passed = await fetch(`${c.url}${c.path}`)
  assert.is(passed.status, 503)
  assert.is(passed.headers.get('retry-after'), '5')
  for (const i of onPostgres ? [c.instances.length - 1] : roots) {
    const up = await runCli(['up'], { env: env(i) })
    assert.is(up.code, 0, up.stderr)
  }
  const back = await Promise.all(urls.map((u) => until(u, 200, 5000)))
  console.log(`  back up: 200 after ${back.map((t) => Math.round(t)).join(', ')} ms`)
  for (const t of back.slice(1)) assert.ok(t < 1000, `200 within a second (${Math.round(t)} ms)`)
  assert.ok(back[0]! < 1000, `200 through HAProxy within a second (${Math.round(back[0]!)} ms)`)
  await c.waitAllUp(5000)
})

test.run()
