import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import { envelope, envelopeOf, playgroundApp, signIn, tokenOf } from './fixtures.js'

// The unified middleware on `GET /api/v1/me` (plugins/api/README.md "Named middleware").
const test = appSuite('api unified middleware', playgroundApp)

const UNAUTHENTICATED = {
  status: 401,
  statusmessage: 'Unauthenticated',
  message: 'Authentication required.',
  error: 'Unauthenticated',
}

test('1: a bearer token (Authorization or accessToken) is enough, no API key needed', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel, 'user')
  for (const headers of [{ authorization: `Bearer ${token}` }, { accesstoken: token }]) {
    const res = await app.kernel.inject({ url: '/api/v1/me', headers })
    assert.is(res.status, 200, res.body)
    assert.is(res.json<{ username: string }>().username, 'user')
  }
})

test('2: the web session with its X-CSRF-Token', async ({ app }) => {
  const { session, csrf } = await signIn(app.kernel, 'editor')
  const res = await app.kernel.inject({
    url: '/api/v1/me',
    cookies: { fw_session: session },
    headers: { 'x-csrf-token': csrf },
  })
  assert.is(res.status, 200, res.body)
  assert.is(res.json<{ username: string }>().username, 'editor')
})

test('the bearer comes first: token of one user, session of another → the token user', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel, 'user')
  const { session, csrf } = await signIn(app.kernel, 'editor')
  const res = await app.kernel.inject({
    url: '/api/v1/me',
    cookies: { fw_session: session },
    headers: { 'x-csrf-token': csrf, authorization: `Bearer ${token}` },
  })
  assert.is(res.status, 200)
  assert.is(res.json<{ username: string }>().username, 'user')
})

test('3: nothing, the cookie alone, or a wrong CSRF token → 401 Unauthenticated', async ({
  app,
}) => {
  const { session, csrf } = await signIn(app.kernel)
  for (const req of [
    {},
    { cookies: { fw_session: session } },
    { cookies: { fw_session: session }, headers: { 'x-csrf-token': `${csrf}x` } },
    { headers: { apikey: 'demo-api-key' } },
  ]) {
    const res = await app.kernel.inject({ url: '/api/v1/me', ...req })
    assert.is(res.status, 401, JSON.stringify(req))
    assert.equal(res.json(), UNAUTHENTICATED)
  }
})

test('an invalid bearer never falls back to a valid session', async ({ app }) => {
  const { session, csrf } = await signIn(app.kernel)
  const token = await tokenOf(app.kernel)
  for (const headers of [
    { authorization: 'Bearer not.a.jwt' },
    { authorization: `Bearer ${token}x` },
    { accesstoken: 'garbage' },
  ]) {
    const res = await app.kernel.inject({
      url: '/api/v1/me',
      cookies: { fw_session: session },
      headers: { 'x-csrf-token': csrf, ...headers },
    })
    assert.is(res.status, 401, JSON.stringify(headers))
    assert.equal(envelopeOf(res.json()), envelope(401, 'Unauthenticated'))
  }
})

test('a refused token: development explains it in `data`, as the API-key middleware does', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel)
  for (const [headers, credential] of [
    [{ authorization: 'Bearer not.a.jwt' }, 'accessToken'],
    [{ authorization: `Bearer ${token}x` }, 'accessToken'],
    [{ userauth: 'garbage' }, 'userAuth'],
  ] as const) {
    const res = await app.kernel.inject({ url: '/api/v1/me', headers })
    assert.is(res.status, 401, JSON.stringify(headers))
    const body = res.json<Record<string, unknown>>()
    assert.equal(envelopeOf(body), envelope(401, 'Unauthenticated'))
    const data = body.data as { credential: string; reason: string }
    assert.equal(Object.keys(data), ['credential', 'reason'])
    assert.is(data.credential, credential)
    assert.type(data.reason, 'string')
    // The reason, never the token.
    assert.not.match(JSON.stringify(data), token)
  }
})

test('no `data` key outside development', async () => {
  const prod = await playgroundApp({}, { NODE_ENV: 'production' })
  try {
    const res = await prod.kernel.inject({
      url: '/api/v1/me',
      headers: { authorization: 'Bearer not.a.jwt' },
    })
    assert.is(res.status, 401)
    assert.equal(res.json(), UNAUTHENTICATED)
  } finally {
    await prod.close()
  }
})

test('the 401 is negotiated like any API reply (XML when asked)', async ({ app }) => {
  const res = await app.kernel.inject({ url: '/api/v1/me', headers: { accept: 'application/xml' } })
  assert.is(res.status, 401)
  assert.is(res.headers['content-type'], 'application/xml; charset=utf-8')
  assert.match(res.body, '<error>Unauthenticated</error>')
})

test.run()
