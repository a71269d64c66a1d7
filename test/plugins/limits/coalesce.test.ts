import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { coalesce, createMemoryStore, type LimitStore, type WindowCount } from 'fw/plugins/limits'

// Hits on one key while one is in flight go to the store as one hit of their summed cost; each
// request still gets its own exact count. The store here is the memory store behind a delay (a
// shared store's round trip), which records every hit it is sent.
const test = suite('limits: coalesced hits')

function slowStore(): { store: LimitStore; sent: { key: string; cost: number }[]; fail: string[] } {
  const inner = createMemoryStore()
  const sent: { key: string; cost: number }[] = []
  const fail: string[] = []
  return {
    sent,
    fail,
    store: {
      name: 'slow',
      async hit(key, cost, windowMs): Promise<WindowCount> {
        sent.push({ key, cost })
        await new Promise((resolve) => setTimeout(resolve, 20))
        if (fail.includes(key)) throw new Error(`store down for ${key}`)
        return inner.hit(key, cost, windowMs)
      },
    },
  }
}

test('ten concurrent hits on a key: two trips to the store, counts 1 to 10 each once', async () => {
  const { store, sent } = slowStore()
  const coalesced = coalesce(store)
  const counts = await Promise.all(
    Array.from({ length: 10 }, () => coalesced.hit('api:a', 1, 60_000)),
  )
  assert.equal(sent, [
    { key: 'api:a', cost: 1 },
    { key: 'api:a', cost: 9 },
  ])
  assert.equal(
    counts.map((c) => c.hits),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  )
  // Later hits start a new trip of their own.
  assert.is((await coalesced.hit('api:a', 2, 60_000)).hits, 12)
  assert.is(sent.length, 3)
})

test('other keys are not held behind a key in flight; costs add up in order', async () => {
  const { store, sent } = slowStore()
  const coalesced = coalesce(store)
  const [a1, b1, a2, a3] = await Promise.all([
    coalesced.hit('api:a', 1, 60_000),
    coalesced.hit('api:b', 1, 60_000),
    coalesced.hit('api:a', 3, 60_000),
    coalesced.hit('api:a', 2, 60_000),
  ])
  assert.equal(
    [a1, b1, a2, a3].map((c) => c.hits),
    [1, 1, 4, 6],
  )
  assert.equal(sent, [
    { key: 'api:a', cost: 1 },
    { key: 'api:b', cost: 1 },
    { key: 'api:a', cost: 5 },
  ])
})

test('a failed trip fails every request it carried; the next one is sent', async () => {
  const { store, sent, fail } = slowStore()
  const coalesced = coalesce(store)
  const first = coalesced.hit('api:a', 1, 60_000)
  fail.push('api:a')
  const waiting = [coalesced.hit('api:a', 1, 60_000), coalesced.hit('api:a', 1, 60_000)]
  const settled = await Promise.allSettled([first, ...waiting])
  assert.equal(
    settled.map((s) => s.status),
    ['rejected', 'rejected', 'rejected'],
  )
  fail.length = 0
  assert.is((await coalesced.hit('api:a', 1, 60_000)).hits, 1)
  assert.equal(
    sent.map((s) => s.cost),
    [1, 2, 1],
  )
})

test.run()
