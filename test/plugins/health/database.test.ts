import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import health from 'fw/plugins/health'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createTestKernel, inject } from 'fw/testing'
import type { Kernel } from 'fw'

const test = suite<{ db: TestDatabase; kernels: Kernel[] }>('health database')
const only = { diskSpace: false, memoryLimit: false, cache: false } as const

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.kernels = []
})
test.after(async (context) => {
  for (const k of context.kernels) await k.close().catch(() => undefined)
  await context.db.drop()
})

function kernelFor(context: { kernels: Kernel[] }, url: string, broken = false): Kernel {
  const migrations = broken ? () => Promise.reject(new Error('cannot load migrations')) : undefined
  const kernel = createTestKernel({
    plugins: [
      [
        database,
        { url, entities: [], prepareOnListen: false, ...(migrations ? { migrations } : {}) },
      ],
      [health, only],
    ],
  })
  context.kernels.push(kernel)
  return kernel
}

test('database is ok with latency, driver and server version', async (context) => {
  const kernel = kernelFor(context, context.db.url)
  // Open as a server has it open (at listen): the check measures a round trip, not PGlite's start.
  await kernel.boot()
  await kernel.plugin('database').ready()
  await kernel.plugin('database').sql`select 1`
  const res = await inject(kernel, '/health/check')
  const check = (
    res.json() as {
      checks: Record<string, { status: string; message: string; details: Record<string, unknown> }>
    }
  ).checks.database!
  assert.is(check.status, 'ok', check.message)
  assert.is(res.status, 200)
  const driver = context.db.url.startsWith('pglite') ? 'pglite' : 'postgresql'
  assert.is(check.details.driver, driver)
  assert.type(check.details.latency_ms, 'number')
  assert.match(String(check.details.server_version), /^PostgreSQL \d+/)
  assert.match(check.message, /PostgreSQL [\d.]+/)
  console.log(`  (database check on ${driver}: ${check.message})`)
})

test('database is down, not a hang, when PostgreSQL is unreachable', async (context) => {
  const kernel = kernelFor(context, 'postgresql://postgres@127.0.0.1:1/x')
  await kernel.boot()
  const started = Date.now()
  const report = await kernel.plugin('health').run()
  assert.ok(Date.now() - started < 2500)
  const check = report.checks.database!
  assert.is(check.status, 'down')
  assert.is(check.details!.driver, 'postgresql')
  assert.is(report.status, 'down')
})

test('database is omitted entirely when the database never opened', async (context) => {
  const kernel = kernelFor(context, 'pglite://memory', true)
  await kernel.boot()
  const h = kernel.plugin('health')
  assert.ok(h.checks().some((c) => c.name === 'database'))
  // The opening fails once PGlite has started, which can take longer than a check's timeout on a
  // loaded machine: the check is run once the opening has failed.
  const opening = await kernel
    .plugin('database')
    .ready()
    .then(
      () => 'opened',
      (error: unknown) => String(error),
    )
  assert.match(opening, 'cannot load migrations')
  const report = await h.run()
  assert.equal(Object.keys(report.checks), [])
  assert.not.ok(h.checks().some((c) => c.name === 'database'))
})

test('database is not registered without the database plugin', async () => {
  const kernel = createTestKernel({ plugins: [[health, only]] })
  await kernel.boot()
  assert.equal(kernel.plugin('health').checks(), [])
})

test.run()
