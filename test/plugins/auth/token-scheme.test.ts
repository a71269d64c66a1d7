import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel } from 'fw'
import auth from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import { expectEvent } from 'fw/testing'
import { createAuthApp, login, type AuthApp } from './fixtures.js'

// `auth.token_scheme`: the scheme of `Authorization` that carries an access token.
const test = suite<{ app: AuthApp; token: string }>('auth token scheme', {} as never)

test.before(async (context) => {
  context.app = await createAuthApp({
    env: { FW_CONFIG: JSON.stringify({ auth: { token_scheme: 'Token' } }) },
  })
  const res = await login(context.app.kernel, 'admin', 'admin-pass')
  context.token = res.json<{ access_token: string }>().access_token
})
test.after(async ({ app }) => app.close())

async function whoami(app: AuthApp, headers: Record<string, string>) {
  const res = await app.kernel.inject({ url: '/probe/whoami', headers })
  return { res, identity: res.json<{ identity: { username?: string } | null }>().identity }
}

test('Authorization: Token <jwt> authenticates, in any case of the scheme', async ({
  app,
  token,
}) => {
  for (const authorization of [`Token ${token}`, `token ${token}`, `TOKEN  ${token}`]) {
    const { res, identity } = await whoami(app, { authorization })
    assert.is(identity?.username, 'admin', authorization.slice(0, 6))
    assert.is(expectEvent(res.events, 'auth.resolved').source, 'Authorization')
  }
  // The other headers may carry the configured scheme in front of the token too.
  assert.is((await whoami(app, { accesstoken: `Token ${token}` })).identity?.username, 'admin')
})

test('another scheme, Bearer included, presents no token', async ({ app, token }) => {
  for (const authorization of [`Bearer ${token}`, `Tokens ${token}`, `Token`, token]) {
    const { res, identity } = await whoami(app, { authorization })
    assert.is(identity, null, authorization.slice(0, 7))
    assert.is(expectEvent(res.events, 'auth.resolved').credential, null)
  }
})

test('a scheme that is not an HTTP token fails register() naming the key', () => {
  for (const scheme of ['', 'Bearer token', 'Tok(en)']) {
    const kernel = createKernel({ config: { auth: { token_scheme: scheme } } as never })
    kernel.register(database, { url: 'pglite://memory', entities: [] })
    assert.throws(() => kernel.register(auth), /auth\.token_scheme/, JSON.stringify(scheme))
  }
})

test.run()
