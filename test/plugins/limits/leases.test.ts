// Leases over the database store (the suite's database: PGlite, or PostgreSQL with DATABASE_URL):
// two `coalesce()` layers over one table stand for two instances, each with its own leases. What
// one leases is counted for the other at once, what is left goes back at `close()`, and however
// the hits are spread, no more than the limiter's points pass in a window.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import limits, {
  coalesce,
  createDatabaseStore,
  type LeaseAsk,
  type LimitStore,
} from 'fw/plugins/limits'

const test = suite<{ db?: TestDatabase; kernel?: Kernel }>('limits: leases')
const WINDOW_MS = 60_000

test.before(async (context) => {
  const db = (context.db = await createTestDatabase())
  // The limits plugin on the database store, for its migrations.
  const kernel = (context.kernel = createTestKernel({
    config: { limits: { store: 'database', redis_url: undefined } },
    plugins: [
      [database, { url: db.url, entities: [] }],
      [limits, {}],
    ],
  }))
  await kernel.boot()
  await kernel.plugin('database').prepare()
})

test.after(async (context) => {
  await context.kernel?.close()
  await context.db?.drop()
})

/** An instance's store: the database store behind its own coalescing layer, its takes recorded. */
function instance(kernel: Kernel): { store: LimitStore; asked: LeaseAsk[]; granted: number[] } {
  const inner = createDatabaseStore(kernel.plugin('database'))
  const asked: LeaseAsk[] = []
  const granted: number[] = []
  const spied: LimitStore = {
    ...inner,
    async take(key, cost, windowMs, ask) {
      asked.push(ask)
      const count = await inner.take!(key, cost, windowMs, ask)
      granted.push(count.leased)
      return count
    },
  }
  return { store: coalesce(spied), asked, granted }
}

async function rowHits(kernel: Kernel, key: string): Promise<number | undefined> {
  const [row] = await kernel.plugin('database').sql<{ hits: number }>`
    select hits from fw_rate_limits where key = ${key}`
  return row?.hits
}

test('a busy key leases; the other instance counts the lease; close gives back what is left', async ({
  kernel,
}) => {
  const a = instance(kernel!)
  const b = instance(kernel!)
  // Ten at once on a: the first goes alone, the nine that waited go as one take asking for 4.
  const first = await Promise.all(
    Array.from({ length: 10 }, () => a.store.hit('lease:one', 1, WINDOW_MS, 1000)),
  )
  assert.equal(
    first.map((c) => c.hits),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  )
  assert.equal(a.asked, [{ points: 1000, want: 4 }])
  assert.equal(a.granted, [4])
  assert.is(await rowHits(kernel!, 'lease:one'), 14)
  // b counts after a's lease; a spends two of it without the store.
  assert.is((await b.store.hit('lease:one', 1, WINDOW_MS, 1000)).hits, 15)
  assert.is((await a.store.hit('lease:one', 1, WINDOW_MS, 1000)).hits, 11)
  assert.is((await a.store.hit('lease:one', 1, WINDOW_MS, 1000)).hits, 12)
  assert.is(a.asked.length, 1)
  // a's two unspent points go back: the store counts exactly the 13 hits made.
  await a.store.close!()
  assert.is(await rowHits(kernel!, 'lease:one'), 13)
  await b.store.close!()
})

test('near the limit nothing is leased: with 15 points left, the count goes hit by hit', async ({
  kernel,
}) => {
  const a = instance(kernel!)
  await Promise.all(Array.from({ length: 10 }, () => a.store.hit('lease:near', 1, WINDOW_MS, 25)))
  // After 1 and then 9 counted, 15 remain: an eighth of that is under 2 points.
  assert.equal(a.granted, [0])
  assert.is(await rowHits(kernel!, 'lease:near'), 10)
  await a.store.close!()
})

test('waves over two instances: exactly points pass, never more, every hit counted', async ({
  kernel,
}) => {
  const points = 100
  const a = instance(kernel!)
  const b = instance(kernel!)
  let passed = 0
  for (let wave = 0; wave < 6; wave++) {
    const counts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? a : b).store.hit('lease:waves', 1, WINDOW_MS, points),
      ),
    )
    passed += counts.filter((c) => c.hits <= points).length
    assert.ok(passed <= points, `wave ${wave}: ${passed} passed`)
  }
  assert.ok(
    [...a.granted, ...b.granted].some((n) => n > 0),
    'some take was granted a lease',
  )
  assert.is(passed, points)
  await Promise.all([a.store.close!(), b.store.close!()])
  assert.is(await rowHits(kernel!, 'lease:waves'), 240)
})

test('a plain hit (no points given) never leases', async ({ kernel }) => {
  const a = instance(kernel!)
  await Promise.all(Array.from({ length: 10 }, () => a.store.hit('lease:plain', 1, WINDOW_MS)))
  assert.equal(a.asked, [])
  assert.is(await rowHits(kernel!, 'lease:plain'), 10)
  await a.store.close!()
})

test.run()
