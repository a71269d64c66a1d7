import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { servePlayground } from './serve-process.js'

// A route-bound model read without an EntityManager waits, until the request's EntityManager
// adopts it, with a link to its request. That link must die with the request: held in a WeakMap,
// it did not, because V8's young-generation collections keep the values of an old WeakMap's
// entries alive, so every such request (its context, events, reply) survived them and was copied
// to the old generation, freed only by full collections. Measured here with V8's own count of the
// bytes each young-generation collection promoted (`--trace-gc-nvp`), on the playground's
// `GET /api/v1/products/{id}` on PGlite: 6.3 KB per request with the WeakMap, 2.5 KB without (the
// rest is PGlite's own work, in the same process).

const test = suite('bound model promotion')
const API = { accept: 'application/json', apikey: 'demo-api-key' }

test('serving bound models promotes under 4 KB per request to the old generation', async () => {
  const app = await servePlayground(
    {
      NODE_ENV: 'production',
      DATABASE_URL: 'pglite://memory',
      FW_API_LIMIT: '1000000',
      // PGlite in the main thread: the worker thread's messages promote ~2 KB a request of their
      // own (measured with this test), which is the worker's cost, not the bound models'.
      FW_CONFIG: '{"database":{"pglite_worker":false}}',
    },
    60_000,
    ['--trace-gc-nvp'],
  )
  try {
    const load = async (n: number): Promise<void> => {
      let next = 0
      const worker = async (): Promise<void> => {
        while (next < n) {
          const id = 1 + (next++ % 50)
          const res = await fetch(`${app.url}/api/v1/products/${id}`, { headers: API })
          assert.is(res.status, 200)
          await res.arrayBuffer()
        }
      }
      await Promise.all(Array.from({ length: 8 }, worker))
    }
    await load(300)
    const from = app.output().length
    const n = 2000
    await load(n)
    const promoted = [
      ...app
        .output()
        .slice(from)
        .matchAll(/promoted=(\d+)/g),
    ].reduce((sum, m) => sum + Number(m[1]), 0)
    const perRequest = promoted / n
    console.log(`    promoted ${perRequest.toFixed(0)} bytes per request`)
    assert.ok(perRequest < 4096, `${perRequest.toFixed(0)} bytes per request promoted`)
  } finally {
    await app.stop()
  }
})

test.run()
