// The shared stores under a burst: the database store (on the suite's database: PGlite, or
// PostgreSQL with DATABASE_URL) and the Redis store (127.0.0.1:6379) count concurrent hits
// exactly, so a burst gets exactly `points` through.
import { randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import limits from 'fw/plugins/limits'

const test = suite<{ db?: TestDatabase; kernels: Kernel[] }>('limit stores', { kernels: [] })

test.after(async (context) => {
  for (const kernel of context.kernels) await kernel.close()
  await context.db?.drop()
})

async function burst(kernel: Kernel, n: number): Promise<number[]> {
  const replies = await Promise.all(
    Array.from({ length: n }, () =>
      kernel.inject({ url: '/limited', headers: { accept: 'application/json' } }),
    ),
  )
  return replies.map((r) => r.status)
}

function count(statuses: number[], status: number): number {
  return statuses.filter((s) => s === status).length
}

test('the database store lets exactly points of a concurrent burst through', async (context) => {
  const db = (context.db = await createTestDatabase())
  const kernel = createTestKernel({
    config: { limits: { store: 'database', redis_url: undefined } },
    plugins: [
      [database, { url: db.url, entities: [] }],
      [limits, { limiters: { burst: { points: 10, duration: 60 } } }],
    ],
  })
  context.kernels.push(kernel)
  kernel.router.get('limited', () => ({ ok: true })).middleware('limit:burst')
  await kernel.boot()
  await kernel.plugin('database').prepare()
  assert.is(kernel.plugin('limits').store.name, 'postgresql')
  const statuses = await burst(kernel, 25)
  assert.is(count(statuses, 200), 10, statuses.join(' '))
  assert.is(count(statuses, 429), 15)
  const [row] = await kernel.plugin('database').sql<{ hits: number }>`
    select hits from fw_rate_limits`
  assert.is(row?.hits, 25)
})

test('the Redis store lets exactly points of a concurrent burst through', async (context) => {
  const kernel = createTestKernel({
    config: { limits: { store: 'redis', redis_url: 'redis://127.0.0.1:6379' } },
    plugins: [[limits, {}]],
  })
  context.kernels.push(kernel)
  await kernel.boot()
  // A limiter name of this run's own, so that keys left by an earlier run cannot count.
  const name = `burst-${randomBytes(4).toString('hex')}`
  kernel.plugin('limits').define(name, { points: 7, duration: 5 })
  kernel.router.get('limited', () => ({ ok: true })).middleware(`limit:${name}`)
  assert.is(kernel.plugin('limits').store.name, 'redis')
  const statuses = await burst(kernel, 40)
  assert.is(count(statuses, 200), 7, statuses.join(' '))
  assert.is(count(statuses, 429), 33)
})

test.run()
