// In production `/_demo/queries` is public: it runs at most 10 statements per request there (200
// in development, test/playground/products.test.ts), so that a client cannot hold the database
// with a few requests.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { playgroundApp, type PlaygroundApp } from '../plugins/api/fixtures.js'

const test = suite<{ app: PlaygroundApp }>(
  'playground /_demo/queries in production',
  {} as {
    app: PlaygroundApp
  },
)

test.before(async (context) => {
  context.app = await playgroundApp({}, { NODE_ENV: 'production' })
})
test.after(async ({ app }) => app.close())

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
