import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import { createHash } from 'node:crypto'
import { runStatement } from 'fw/plugins/database'
import { DEMO_KEY, envelope, envelopeOf, playgroundApp, signIn, tokenOf } from './fixtures.js'

// The API-key middleware on the playground's `/api/v1` routes (plugins/api/README.md "Failures").
const test = appSuite('api key middleware', playgroundApp)

const URL = '/api/v1/products/1'

test('answers the route with the playground key (header name in any case)', async ({ app }) => {
  for (const headers of [{ apikey: DEMO_KEY }, { apiKey: DEMO_KEY }, { APIKEY: DEMO_KEY }]) {
    const res = await app.kernel.inject({ url: URL, headers })
    assert.is(res.status, 200, res.body)
    assert.is(res.json<{ id: number }>().id, 1)
    assert.is(res.headers['content-type'], 'application/json; charset=utf-8')
  }
})

test('row 1: no key and no same-origin session → 403 APIKeyMissing', async ({ app }) => {
  for (const headers of [{}, { apikey: '' }, { accept: 'application/json' }]) {
    const res = await app.kernel.inject({ url: URL, headers })
    assert.is(res.status, 403)
    assert.equal(envelopeOf(res.json()), envelope(403, 'APIKeyMissing'))
  }
  // The envelope also on a write (the handler never runs: nothing is stored).
  const res = await app.kernel.inject({
    method: 'POST',
    url: '/api/v1/products',
    body: { name: 'x', sku: 'NO-KEY', price: 1, stock: 1 },
  })
  assert.is(res.status, 403)
  assert.equal(res.json(), {
    ...envelope(403, 'APIKeyMissing'),
    message: 'An API key is required.',
  })
})

test('row 2: an unknown key → 401 APIKeyInvalid', async ({ app }) => {
  for (const key of ['wrong-key', `${DEMO_KEY}x`, DEMO_KEY.toUpperCase()]) {
    const res = await app.kernel.inject({ url: URL, headers: { apikey: key } })
    assert.is(res.status, 401)
    assert.equal(res.json(), {
      ...envelope(401, 'APIKeyInvalid'),
      message: 'The API key is not valid.',
    })
  }
})

test('row 2: the key of an application that is not active → 401 APIKeyInvalid', async ({ app }) => {
  const em = app.kernel.plugin('database').em()
  const hash = createHash('sha256').update('suspended-key').digest('hex')
  await runStatement(em, {
    sql: "insert into applications (name, api_key_hash, secret_hash, status) values ('suspended', ?, 'x', 'suspended')",
    bindings: [hash],
  })
  const res = await app.kernel.inject({ url: URL, headers: { apikey: 'suspended-key' } })
  assert.is(res.status, 401)
  assert.equal(envelopeOf(res.json()), envelope(401, 'APIKeyInvalid'))
})

test('row 3: a malformed or refused access token with a good key → 403 InvalidAccessToken', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel)
  for (const headers of [
    { accesstoken: 'not.a.jwt' },
    { accesstoken: `${token}x` },
    { authorization: 'Bearer garbage' },
  ]) {
    const res = await app.kernel.inject({ url: URL, headers: { apikey: DEMO_KEY, ...headers } })
    assert.is(res.status, 403)
    const body = res.json<Record<string, unknown>>()
    assert.equal(envelopeOf(body), envelope(403, 'InvalidAccessToken'))
    // Development (the playground outside production) explains the failure in `data`.
    assert.equal(Object.keys(body.data as object), ['credential', 'reason'])
  }
})

test('row 3: no `data` key outside development', async () => {
  const prod = await playgroundApp({}, { NODE_ENV: 'production' })
  try {
    const res = await prod.kernel.inject({
      url: URL,
      headers: { apikey: DEMO_KEY, accesstoken: 'not.a.jwt' },
    })
    assert.is(res.status, 403)
    assert.equal(Object.keys(res.json()), ['status', 'statusmessage', 'message', 'error'])
  } finally {
    await prod.close()
  }
})

test('a valid access token with a good key passes', async ({ app }) => {
  const token = await tokenOf(app.kernel)
  for (const headers of [{ accesstoken: token }, { authorization: `Bearer ${token}` }]) {
    const res = await app.kernel.inject({ url: URL, headers: { apikey: DEMO_KEY, ...headers } })
    assert.is(res.status, 200, res.body)
  }
})

test('row 4: a valid token whose user no longer exists → 403 InvalidAccessToken', async ({
  app,
}) => {
  const auth = app.kernel.plugin('auth')
  const em = app.kernel.plugin('database').em()
  await auth.createUser({ username: 'leaving', password: 'leaving-pass', email: 'l@x.test' }, em)
  const token = await tokenOf(app.kernel, 'leaving')
  await runStatement(em, {
    sql: 'delete from auth_tokens where user_id in (select id from users where username = ?)',
    bindings: ['leaving'],
  }).catch(() => undefined)
  await runStatement(em, { sql: "delete from users where username = 'leaving'", bindings: [] })
  const res = await app.kernel.inject({
    url: URL,
    headers: { apikey: DEMO_KEY, accesstoken: token },
  })
  assert.is(res.status, 403)
  assert.equal(envelopeOf(res.json()), envelope(403, 'InvalidAccessToken'))
})

test('same-origin exception: a web session with its X-CSRF-Token needs no key', async ({ app }) => {
  const { session, csrf } = await signIn(app.kernel)
  const res = await app.kernel.inject({
    url: URL,
    cookies: { fw_session: session },
    headers: { 'x-csrf-token': csrf, accept: 'application/json' },
  })
  assert.is(res.status, 200, res.body)
  // A write too.
  const stored = await app.kernel.inject({
    method: 'POST',
    url: '/api/v1/products',
    cookies: { fw_session: session },
    headers: { 'x-csrf-token': csrf, accept: 'application/json' },
    body: { name: 'Same origin', sku: 'SAME-ORIGIN-1', price: 1, stock: 1 },
  })
  assert.is(stored.status, 201, stored.body)
})

test('same-origin exception: the cookie alone, or a wrong CSRF token, is never enough', async ({
  app,
}) => {
  const { session, csrf } = await signIn(app.kernel)
  for (const headers of [{}, { 'x-csrf-token': `${csrf}x` }, { 'x-csrf-token': '' }]) {
    for (const method of ['GET', 'POST']) {
      const res = await app.kernel.inject({
        method,
        url: method === 'GET' ? URL : '/api/v1/products',
        cookies: { fw_session: session },
        headers,
        body: method === 'POST' ? { name: 'x', sku: 'COOKIE-ONLY', price: 1, stock: 1 } : undefined,
      })
      assert.is(res.status, 403, `${method} ${JSON.stringify(headers)}`)
      assert.equal(envelopeOf(res.json()), envelope(403, 'APIKeyMissing'))
    }
  }
})

test('same-origin exception: a refused token next to the session is still a 403', async ({
  app,
}) => {
  const { session, csrf } = await signIn(app.kernel)
  const res = await app.kernel.inject({
    url: URL,
    cookies: { fw_session: session },
    headers: { 'x-csrf-token': csrf, accesstoken: 'not.a.jwt' },
  })
  assert.is(res.status, 403)
  assert.equal(envelopeOf(res.json()), envelope(403, 'InvalidAccessToken'))
})

test('every API group runs the pipeline: v1 list, datatable, v2', async ({ app }) => {
  for (const url of ['/api/v1/products', '/api/v1/products/datatable', '/api/v2/products']) {
    assert.is((await app.kernel.inject(url)).status, 403, url)
    assert.is((await app.kernel.inject({ url, headers: { apikey: DEMO_KEY } })).status, 200, url)
  }
})

test.run()
