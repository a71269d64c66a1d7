// The Conduit example's tokens: each expires (`exp` in the JWT, `expires` on its row: a day, or
// `auth.token_ttl`), a new password revokes every other token of the user, and the auth plugin's
// `POST /account/logout` revokes the one presented.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { TOKEN_TTL } from '../../examples/conduit/app.js'
import { call, errorsOf, register, startConduit, type Conduit } from './conduit-fixtures.js'

const test = suite<Conduit>('conduit example: tokens')

test.before(async (context) => {
  Object.assign(context, await startConduit())
})
test.after(async (context) => context.close())

function claims(token: string): { iat: number; exp?: number; jti: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as never
}

async function storedExpiry(kernel: Kernel, token: string): Promise<unknown> {
  const [row] = await kernel.plugin('database').runStatement({
    sql: 'select expires from auth_tokens where id = ?',
    bindings: [claims(token).jti],
  })
  return row?.expires === null ? null : Number(row?.expires)
}

const signIn = async (kernel: Kernel, email: string, password: string) => {
  const res = await call(kernel, 'POST', '/users/login', { body: { user: { email, password } } })
  return {
    status: res.status,
    token: res.status === 200 ? res.json<{ user: { token: string } }>().user.token : '',
  }
}

const status = async (kernel: Kernel, token: string) =>
  (await call(kernel, 'GET', '/user', { token })).status

test('a token expires a day after it is issued, in the JWT and on its row', async ({ kernel }) => {
  const registered = await register(kernel, 'ann')
  const { token: signedIn } = await signIn(kernel, 'ann@conduit.test', 'ann-pass')
  for (const token of [registered, signedIn]) {
    const { iat, exp } = claims(token)
    assert.is(exp, iat + TOKEN_TTL)
    assert.is(await storedExpiry(kernel, token), exp)
  }
  assert.is(TOKEN_TTL, 86_400)
})

test('a token past its expiry is refused: 401, and the client signs in again', async ({
  kernel,
}) => {
  const token = await register(kernel, 'old')
  await kernel.plugin('database').runStatement({
    sql: 'update auth_tokens set expires = ? where id = ?',
    bindings: [Math.floor(Date.now() / 1000) - 1, claims(token).jti],
  })
  const res = await call(kernel, 'GET', '/user', { token })
  assert.is(res.status, 401)
  assert.equal(errorsOf(res), ['a valid token is required'])
  assert.is((await signIn(kernel, 'old@conduit.test', 'old-pass')).status, 200)
})

test('a new password revokes every other token of the user; the one that set it stays', async ({
  kernel,
}) => {
  const first = await register(kernel, 'dee')
  const second = (await signIn(kernel, 'dee@conduit.test', 'dee-pass')).token
  const third = (await signIn(kernel, 'dee@conduit.test', 'dee-pass')).token
  const other = await register(kernel, 'eli')
  // Each is in use (and so in the auth plugin's cache) before the change.
  for (const token of [first, second, third, other]) assert.is(await status(kernel, token), 200)
  const changed = await call(kernel, 'PUT', '/user', {
    token: third,
    body: { user: { password: 'new-pass' } },
  })
  assert.is(changed.status, 200)
  assert.is(changed.json<{ user: { token: string } }>().user.token, third)
  assert.equal(
    [await status(kernel, first), await status(kernel, second), await status(kernel, third)],
    [401, 401, 200],
  )
  assert.is(await status(kernel, other), 200, "another user's token is untouched")
  assert.is((await signIn(kernel, 'dee@conduit.test', 'dee-pass')).status, 401)
  assert.is((await signIn(kernel, 'dee@conduit.test', 'new-pass')).status, 200)
})

test('a change without a password revokes nothing', async ({ kernel }) => {
  const first = await register(kernel, 'fay')
  const second = (await signIn(kernel, 'fay@conduit.test', 'fay-pass')).token
  const res = await call(kernel, 'PUT', '/user', { token: second, body: { user: { bio: 'hi' } } })
  assert.is(res.status, 200)
  assert.is(await status(kernel, first), 200)
})

test('POST /account/logout with the token revokes it', async ({ kernel }) => {
  const token = await register(kernel, 'gus')
  const res = await kernel.inject({
    method: 'POST',
    url: '/account/logout',
    headers: { authorization: `Token ${token}` },
  })
  assert.is(res.status, 200)
  assert.is(await status(kernel, token), 401)
})

test('auth.token_ttl sets another lifetime', async () => {
  const app = await startConduit({ FW_CONFIG: JSON.stringify({ auth: { token_ttl: 3600 } }) })
  try {
    const { iat, exp } = claims(await register(app.kernel, 'hal'))
    assert.is(exp, iat + 3600)
  } finally {
    await app.close()
  }
})

test.run()
