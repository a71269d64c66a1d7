// With no application key, development mode signs with the public development key (sign-in works
// under `fw dev` with nothing set); production never does, whatever else says development.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { postForm } from '../../fixtures/post-raw.js'
import { createAuthApp, login, payloadOf } from './fixtures.js'

const test = suite('auth development key')

test('signs in without FW_APP_KEY in development mode (NODE_ENV=development)', async () => {
  const app = await createAuthApp({ env: { FW_APP_KEY: '', NODE_ENV: 'development' } })
  try {
    assert.ok(app.kernel.plugin('auth').hasAppKey)
    const res = await login(app.kernel, 'admin', 'admin-pass')
    assert.is(res.status, 200, res.body)
    const token = res.json<{ access_token: string }>().access_token
    assert.is(payloadOf(token).username, 'admin')
    // The token it signed is accepted back.
    const me = await app.kernel.inject({
      url: '/probe/whoami',
      headers: { authorization: `Bearer ${token}` },
    })
    assert.is(me.json<{ identity: { username: string } }>().identity.username, 'admin')
  } finally {
    await app.close()
  }
})

test('never signs with it when NODE_ENV=production, even with development mode on', async () => {
  const app = await createAuthApp({
    env: { FW_APP_KEY: '', NODE_ENV: 'production', FW_DEBUG: '1' },
  })
  try {
    assert.ok(app.kernel.isDevelopment())
    assert.not.ok(app.kernel.plugin('auth').hasAppKey)
    const res = await login(app.kernel, 'admin', 'admin-pass')
    assert.is(res.status, 500)
    assert.equal(res.json(), { error: 'token_unavailable' })
    // The sign-in page says it is unavailable, and a submitted form too (not that it expired).
    const form = await app.kernel.inject('/login')
    assert.is(form.status, 500)
    assert.match(form.body, 'Sign-in is unavailable.')
    const submitted = await postForm(
      app.kernel,
      '/login',
      'username=admin&password=admin-pass&_csrf=',
    )
    assert.is(submitted.status, 500)
    assert.match(submitted.body, 'Sign-in is unavailable.')
    assert.not.match(submitted.body, 'expired')
  } finally {
    await app.close()
  }
})

test('outside development mode there is no key either (NODE_ENV unset)', async () => {
  const app = await createAuthApp({ env: { FW_APP_KEY: '' } })
  try {
    assert.not.ok(app.kernel.isDevelopment())
    assert.not.ok(app.kernel.plugin('auth').hasAppKey)
  } finally {
    await app.close()
  }
})

test('a key that is set wins over the development key', async () => {
  const app = await createAuthApp({ env: { NODE_ENV: 'development' } })
  try {
    const token = (await login(app.kernel, 'admin', 'admin-pass')).json<{ access_token: string }>()
      .access_token
    const other = await createAuthApp({ env: { FW_APP_KEY: '', NODE_ENV: 'development' } })
    try {
      // Signed under the suite's key: the development key's app does not accept it.
      const me = await other.kernel.inject({
        url: '/probe/whoami',
        headers: { authorization: `Bearer ${token}` },
      })
      assert.is(me.json<{ identity: unknown }>().identity, null)
    } finally {
      await other.close()
    }
  } finally {
    await app.close()
  }
})

test.run()
