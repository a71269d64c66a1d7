// Who may change products through `/api/v1/products`: the application's API key, or a signed-in
// user of usertype ≥ 50 (the seeded `editor`, `admin`); any signed-in user still reads.
import * as assert from 'uvu/assert'
import { appSuite } from '../fixtures/app-suite.js'
import type { Kernel } from 'fw'
import { DEMO_KEY, playgroundApp, signIn, tokenOf } from '../plugins/api/fixtures.js'

const test = appSuite('playground product writes', playgroundApp)

type Headers = Record<string, string>
type Caller = { headers: Headers; cookies?: Record<string, string> }

/** A web session (cookie and CSRF token), as the site's own pages call the API. */
async function session(kernel: Kernel, username: string): Promise<Caller> {
  const { session, csrf } = await signIn(kernel, username)
  return { headers: { 'x-csrf-token': csrf }, cookies: { fw_session: session } }
}

function call(kernel: Kernel, caller: Caller, method: string, url: string, body?: object) {
  return kernel.inject({
    method,
    url,
    headers: { accept: 'application/json', ...caller.headers },
    cookies: caller.cookies,
    body: body as Record<string, unknown> | undefined,
  })
}

/** Store, update and destroy one new product: the three statuses. */
async function writes(kernel: Kernel, caller: Caller, sku: string): Promise<number[]> {
  const stored = await call(kernel, caller, 'POST', '/api/v1/products', {
    name: 'Desk lamp',
    sku,
    price: 19.5,
    stock: 3,
  })
  const id = stored.status === 201 ? stored.json<{ id: number }>().id : 5
  const updated = await call(kernel, caller, 'PATCH', `/api/v1/products/${id}`, { stock: 4 })
  const destroyed = await call(kernel, caller, 'DELETE', `/api/v1/products/${id}`)
  return [stored.status, updated.status, destroyed.status]
}

test('a usertype-1 session reads but may not store, update or destroy (403)', async ({ app }) => {
  const { kernel } = app
  const user = await session(kernel, 'user')
  assert.is((await call(kernel, user, 'GET', '/api/v1/products')).status, 200)
  assert.is((await call(kernel, user, 'GET', '/api/v1/products/5')).status, 200)
  assert.equal(await writes(kernel, user, 'USER-0001'), [403, 403, 403])
  const refused = await call(kernel, user, 'DELETE', '/api/v1/products/5')
  assert.equal(refused.json(), {
    status: 403,
    statusmessage: 'Forbidden',
    message: 'Your account may not do this.',
    error: 'InsufficientUsertype',
  })
  // Nothing changed: product 5 is there, and no USER-0001 was stored.
  const five = await call(kernel, user, 'GET', '/api/v1/products/5')
  assert.is(five.status, 200)
  const found = await call(kernel, user, 'GET', '/api/v1/products?search=USER-0001')
  assert.is(found.json<{ data: unknown[] }>().data.length, 0)
})

test('an editor or admin session may write', async ({ app }) => {
  const { kernel } = app
  for (const username of ['editor', 'admin']) {
    const caller = await session(kernel, username)
    assert.equal(await writes(kernel, caller, `${username.toUpperCase()}-0001`), [201, 200, 204])
  }
})

test("the application's API key may write, with or without a user's token", async ({ app }) => {
  const { kernel } = app
  assert.equal(await writes(kernel, { headers: { apikey: DEMO_KEY } }, 'KEY-0001'), [201, 200, 204])
  // The key stands for the application: a usertype-1 token next to it does not lower it.
  const token = await tokenOf(kernel, 'user')
  const withToken = { headers: { apikey: DEMO_KEY, authorization: `Bearer ${token}` } }
  assert.equal(await writes(kernel, withToken, 'KEY-0002'), [201, 200, 204])
})

test.run()
