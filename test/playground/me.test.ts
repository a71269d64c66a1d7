import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import type { TestDatabase } from 'fw/plugins/database'
import { bootApp, playground, tokenOf } from '../fixtures/booted-app.js'

const test = suite<{ db: TestDatabase; kernel: Kernel; token: string }>('playground me')

bootApp(
  test,
  playground({ FW_APP_KEY: 'base64:me-test-key', FW_CONFIG: '{"features":["DevPanel"]}' }),
)

test.before(async (context) => {
  context.token = await tokenOf(context.kernel, 'editor')
})

test('answers /api/v1/me for a bearer token, through either header', async ({ kernel, token }) => {
  for (const headers of [{ authorization: `Bearer ${token}` }, { accesstoken: token }]) {
    const res = await kernel.inject({ url: '/api/v1/me', headers })
    assert.is(res.status, 200)
    assert.equal(res.json(), {
      id: 2,
      username: 'editor',
      email: 'editor@playground.test',
      usertype: 50,
    })
  }
})

test('answers 401 with the Unauthenticated envelope without credentials or with a bad token', async ({
  kernel,
  token,
}) => {
  for (const headers of [
    {},
    { authorization: `Bearer ${token}x` },
    { authorization: 'Bearer not.a.jwt' },
  ]) {
    const res = await kernel.inject({ url: '/api/v1/me', headers })
    assert.is(res.status, 401)
    // In development a refused token is explained in `data`; no token, nothing to explain.
    const refused = 'authorization' in headers
    assert.equal(res.json(), {
      status: 401,
      statusmessage: 'Unauthenticated',
      message: 'Authentication required.',
      error: 'Unauthenticated',
      ...(refused ? { data: { credential: 'accessToken', reason: 'invalid' } } : {}),
    })
  }
})

test('refuses a token once it was logged out', async ({ kernel }) => {
  const token = await tokenOf(kernel, 'user')
  assert.is(
    (await kernel.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${token}` } }))
      .status,
    200,
  )
  const out = await kernel.inject({
    method: 'POST',
    url: '/account/logout',
    headers: { authorization: `bearer ${token}` },
  })
  assert.equal(out.json(), { status: 'ok' })
  assert.is(
    (await kernel.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${token}` } }))
      .status,
    401,
  )
})

test.run()
