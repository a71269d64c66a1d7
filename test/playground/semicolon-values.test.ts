// A value holding a `;` (or quotes, `$$`) is a value like any other, on PGlite as on PostgreSQL:
// the write answers as it does for any name, the row it stored reads back as it was written, and
// a login with such a username counts towards the lockout like any other.
import * as assert from 'uvu/assert'
import { appSuite } from '../fixtures/app-suite.js'
import { DEMO_KEY, playgroundApp } from '../plugins/api/fixtures.js'

const test = appSuite('playground values with ;', playgroundApp)

test('POST /api/v1/products with sku "semi;colon" answers 201 and the product reads back', async ({
  app,
}) => {
  const { kernel } = app
  const stored = await kernel.inject({
    method: 'POST',
    url: '/api/v1/products',
    headers: { accept: 'application/json', apikey: DEMO_KEY },
    body: { name: "Lamp; it's $$ bright", sku: 'semi;colon', price: 19.5, stock: 3 },
  })
  assert.is(stored.status, 201, stored.body)
  const { id } = stored.json<{ id: number }>()
  const read = await kernel.inject({
    url: `/api/v1/products/${id}`,
    headers: { accept: 'application/json', apikey: DEMO_KEY },
  })
  assert.is(read.status, 200, read.body)
  const product = read.json<{ sku: string; name: string }>()
  assert.is(product.sku, 'semi;colon')
  assert.is(product.name, "Lamp; it's $$ bright")
})

test('six failed logins as "ghost;x" answer 401 three times, then 429', async ({ app }) => {
  const statuses: number[] = []
  for (let i = 0; i < 6; i++) {
    const res = await app.kernel.inject({
      method: 'POST',
      url: '/account/login',
      body: { username: 'ghost;x', password: 'bad' },
    })
    statuses.push(res.status)
  }
  assert.equal(statuses, [401, 401, 401, 429, 429, 429])
})

test.run()
