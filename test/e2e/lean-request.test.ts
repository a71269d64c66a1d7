import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { servePlayground } from './serve-process.js'

// A route that touches no plugin costs the registered plugins nothing: the playground (every
// plugin registered, the request scope on) answers `GET /_demo/ping`, a synchronous handler,
// without creating a single promise per request. Before the hook runner, every request went
// through about a dozen (async taps, the hooks' promise chains, an async pipeline), and each paid
// the request scope's async-hooks bookkeeping too.

const test = suite('lean request path')
const counter = fileURLToPath(new URL('./count-promises.mjs', import.meta.url))

test('the playground answers a synchronous route without creating a promise per request', async () => {
  const app = await servePlayground(
    { NODE_ENV: 'production', DATABASE_URL: 'pglite://memory' },
    60_000,
    ['--import', counter],
  )
  try {
    const count = async (): Promise<number> => {
      const before = app.output().length
      app.child.kill('SIGUSR2')
      for (let i = 0; i < 200; i++) {
        const line = /promises: (\d+)/.exec(app.output().slice(before))
        if (line) return Number(line[1])
        await new Promise((r) => setTimeout(r, 10))
      }
      throw new Error(`no count printed:\n${app.output()}`)
    }
    // Warm up: the first request opens the database (the database plugin's request tap waits).
    for (let i = 0; i < 5; i++) assert.is((await fetch(`${app.url}/_demo/ping`)).status, 200)
    const before = await count()
    const started = Date.now()
    const n = 200
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${app.url}/_demo/ping`)
      assert.is(res.status, 200)
      assert.equal(await res.json(), { hello: 'world', n: 1 })
    }
    const during = (await count()) - before
    // What the app's timers create meanwhile (the pools, the maintenance poll) is not the
    // requests': as many promises as it makes in an idle spell of the same length are discounted.
    const idleFrom = await count()
    await new Promise((r) => setTimeout(r, Date.now() - started))
    const idle = (await count()) - idleFrom
    const perRequest = (during - idle) / n
    assert.ok(
      perRequest < 0.5,
      `${perRequest} promises per request (${during} during, ${idle} idle)`,
    )
  } finally {
    await app.stop()
  }
})

test.run()
