// In production `/_demo/queries` is public: it runs at most 10 statements per request there (200
// in development, test/playground/products.test.ts), so that a client cannot hold the database
// with a few requests.
import * as assert from 'uvu/assert'
import { appSuite } from '../fixtures/app-suite.js'
import { playgroundApp } from '../plugins/api/fixtures.js'

const test = appSuite('playground /_demo/queries in production', () =>
  playgroundApp({}, { NODE_ENV: 'production' }),
)

test('n is clamped into 1…10 in production', async ({ app }) => {
  for (const [n, expected] of [
    ['5', 5],
    ['200', 10],
    ['0', 1],
  ] as const) {
    const res = await app.kernel.inject(`/_demo/queries?n=${n}`)
    assert.is(res.status, 200, res.body)
    assert.equal(res.json(), { queries: expected }, n)
  }
})

test.run()
