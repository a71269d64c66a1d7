import { renameSync, readFileSync } from 'node:fs'
import jwt from 'jsonwebtoken'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { expectEvent } from 'fw/testing'
import { hashPassword } from 'fw/plugins/auth'
import { hashApiKey } from '../../../playground/seed.js'
import { payloadOf } from './fixtures.js'
import {
  CLIENT_ID,
  CLIENT_SECRET,
  createOAuthApp,
  passwordGrant,
  runContributed,
  tokenRequest,
  withOAuthApp,
  type OAuthApp,
} from './oauth-fixtures.js'

interface TokenBody {
  token_type: string
  expires_in: number
  access_token: string
  refresh_token: string
}

const test = suite<{ app: OAuthApp }>('auth oauth token endpoint', {} as { app: OAuthApp })

test.before(async (context) => {
  context.app = await createOAuthApp()
  const { code } = await runContributed(context.app.kernel, ['keys:generate'])
  assert.is(code, 0)
  const em = context.app.kernel.plugin('database').em()
  // A second, active client and a suspended one.
  for (const [name, key, status] of [
    ['other', 'other-key', 'active'],
    ['suspended', 'suspended-key', 'suspended'],
  ] as const)
    await em.execute(
      'insert into "applications" ("name", "api_key_hash", "secret_hash", "status", "cors_enabled") values (?, ?, ?, ?, false)',
      [name, hashApiKey(key), await hashPassword(`${key}-secret`), status],
    )
})
test.after(async ({ app }) => app.close())

function assertError(
  res: { status: number; headers: Record<string, string | string[]>; json<T>(): T },
  status: number,
  error: string,
): void {
  assert.is(res.status, status, JSON.stringify(res.json()))
  const body = res.json<Record<string, unknown>>()
  assert.is(body.error, error)
  assert.type(body.error_description, 'string')
  assert.equal(Object.keys(body).sort(), ['error', 'error_description'])
  assert.is(res.headers['cache-control'], 'no-store')
}

test('password grant: 200 {token_type, expires_in, access_token, refresh_token}, no-store', async ({
  app,
}) => {
  const res = await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))
  assert.is(res.status, 200, res.body)
  assert.is(res.headers['cache-control'], 'no-store')
  assert.is(res.headers.pragma, 'no-cache')
  const body = res.json<TokenBody>()
  assert.equal(Object.keys(body).sort(), [
    'access_token',
    'expires_in',
    'refresh_token',
    'token_type',
  ])
  assert.is(body.token_type, 'Bearer')
  assert.is(body.expires_in, 3600)
  assert.ok(/^[A-Za-z0-9_-]{43}$/.test(body.refresh_token))
  const header = JSON.parse(
    Buffer.from(body.access_token.split('.')[0]!, 'base64url').toString('utf8'),
  ) as { alg: string }
  assert.is(header.alg, 'RS256')
  // Verifies with the public key, RS256 only; the claims of the HS256 tokens, `exp` = iat + 3600.
  const claims = jwt.verify(body.access_token, readFileSync(app.publicKey, 'utf8'), {
    algorithms: ['RS256'],
  }) as jwt.JwtPayload
  assert.is(claims.iss, 'playground')
  assert.is(claims.sub, '1')
  assert.is(claims.userid, 1)
  assert.is(claims.username, 'admin')
  assert.ok(/^[0-9a-f-]{36}$/.test(String(claims.jti)))
  assert.is(claims.exp! - claims.iat!, 3600)
  assert.is(claims.nbf, claims.iat! - 43_200)
  const event = expectEvent(res.events, 'auth.resolved')
  assert.is(event.action, 'oauth.password')
  assert.not.ok(JSON.stringify(res.events).includes(body.access_token))
  assert.not.ok(JSON.stringify(res.events).includes(body.refresh_token))
  // Stored revocable: a row of kind access with the token's jti; the refresh token only hashed.
  const rows = await app.kernel
    .plugin('database')
    .em()
    .execute('select "kind", "token_hash", "expires" from "auth_tokens" where "id" = ?', [
      claims.jti,
    ])
  assert.is(rows[0]?.kind, 'access')
  assert.is(Number(rows[0]?.expires), claims.exp)
  const all = await app.kernel
    .plugin('database')
    .em()
    .execute('select "token_hash" from "auth_tokens"')
  assert.not.ok(JSON.stringify(all).includes(body.refresh_token))
})

test('the RS256 token works on /api/v1/me (bearer and accessToken) until it is revoked', async ({
  app,
}) => {
  const { access_token } = (
    await tokenRequest(app.kernel, passwordGrant('editor', 'editor-pass'))
  ).json<TokenBody>()
  for (const headers of [
    { authorization: `Bearer ${access_token}` },
    { accesstoken: access_token },
  ]) {
    const me = await app.kernel.inject({ url: '/api/v1/me', headers })
    assert.is(me.status, 200, me.body)
    assert.equal(me.json(), {
      id: 2,
      username: 'editor',
      email: 'editor@playground.test',
      usertype: 50,
    })
  }
  const out = await app.kernel.inject({
    method: 'POST',
    url: '/account/logout',
    headers: { authorization: `Bearer ${access_token}` },
  })
  assert.is(out.status, 200)
  await new Promise((r) => setTimeout(r, 1100)) // the verified-token cache (1 s)
  const after = await app.kernel.inject({
    url: '/api/v1/me',
    headers: { authorization: `Bearer ${access_token}` },
  })
  assert.is(after.status, 401)
})

test('accepts a JSON body and HTTP Basic client authentication', async ({ app }) => {
  const json = await app.kernel.inject({
    method: 'POST',
    url: '/api/oauth/token',
    body: passwordGrant('admin', 'admin-pass'),
  })
  assert.is(json.status, 200, json.body)
  const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')
  const res = await tokenRequest(
    app.kernel,
    { grant_type: 'password', username: 'admin', password: 'admin-pass' },
    { authorization: `Basic ${basic}` },
  )
  assert.is(res.status, 200, res.body)
})

test('invalid_request 400: no grant_type, no username or password, a repeated parameter', async ({
  app,
}) => {
  const { grant_type: _, ...noGrant } = passwordGrant('admin', 'admin-pass')
  assertError(await tokenRequest(app.kernel, noGrant), 400, 'invalid_request')
  const { username: _u, ...noUser } = passwordGrant('admin', 'admin-pass')
  assertError(await tokenRequest(app.kernel, noUser), 400, 'invalid_request')
  assertError(await tokenRequest(app.kernel, passwordGrant('admin', '')), 400, 'invalid_request')
  const twice = await app.kernel.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `${new URLSearchParams(passwordGrant('admin', 'admin-pass'))}&password=other`,
  })
  assertError(twice, 400, 'invalid_request')
})

test('unsupported_grant_type 400', async ({ app }) => {
  for (const grant_type of ['client_credentials', 'authorization_code', 'PASSWORD']) {
    const res = await tokenRequest(app.kernel, {
      ...passwordGrant('admin', 'admin-pass'),
      grant_type,
    })
    assertError(res, 400, 'unsupported_grant_type')
  }
})

test('invalid_client 401 with WWW-Authenticate: Basic: wrong secret, unknown key, suspended, none', async ({
  app,
}) => {
  for (const fields of [
    { client_secret: 'wrong-secret' } as Record<string, string>,
    { client_id: 'no-such-key' },
    { client_id: 'suspended-key', client_secret: 'suspended-key-secret' },
    { client_id: '', client_secret: '' },
    { client_id: CLIENT_ID.toUpperCase() },
  ]) {
    const res = await tokenRequest(app.kernel, {
      ...passwordGrant('admin', 'admin-pass'),
      ...fields,
    })
    assertError(res, 401, 'invalid_client')
    assert.ok(String(res.headers['www-authenticate']).startsWith('Basic'))
  }
})

test('invalid_grant 400: wrong password, unknown user; a user with a second factor (alice)', async ({
  app,
}) => {
  assertError(
    await tokenRequest(app.kernel, passwordGrant('admin', 'wrong-pass')),
    400,
    'invalid_grant',
  )
  assertError(
    await tokenRequest(app.kernel, passwordGrant('nobody', 'x-pass')),
    400,
    'invalid_grant',
  )
  const alice = await tokenRequest(app.kernel, passwordGrant('alice', 'alice-pass'))
  assertError(alice, 400, 'invalid_grant')
  assert.match(alice.json<{ error_description: string }>().error_description, /second factor/)
  // The failures counted; a correct sign-in clears admin's count.
  assert.is((await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))).status, 200)
})

test('the lockout applies: failures count with /account/login, a locked user gets invalid_grant', async ({
  app,
}) => {
  for (let i = 0; i < 2; i++)
    assertError(
      await tokenRequest(app.kernel, passwordGrant('user', 'wrong')),
      400,
      'invalid_grant',
    )
  const third = await app.kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'USER', password: 'wrong' },
  })
  assert.is(third.status, 401)
  const locked = await tokenRequest(app.kernel, passwordGrant('user', 'user-pass'))
  assertError(locked, 400, 'invalid_grant')
  assert.match(locked.json<{ error_description: string }>().error_description, /too many/)
  const retry = Number(locked.headers['retry-after'])
  assert.ok(retry > 0 && retry <= 60, String(retry))
  const login = await app.kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'user', password: 'user-pass' },
  })
  assert.is(login.status, 429)
})

test('refresh_token grant: a new pair, the old refresh token used up, bound to its client', async ({
  app,
}) => {
  const first = (
    await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))
  ).json<TokenBody>()
  const refresh = {
    grant_type: 'refresh_token',
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    refresh_token: first.refresh_token,
  }
  // Another client cannot redeem it (and that attempt does not use it up).
  const stolen = await tokenRequest(app.kernel, {
    ...refresh,
    client_id: 'other-key',
    client_secret: 'other-key-secret',
  })
  assertError(stolen, 400, 'invalid_grant')
  const res = await tokenRequest(app.kernel, refresh)
  assert.is(res.status, 200, res.body)
  const second = res.json<TokenBody>()
  assert.is.not(second.refresh_token, first.refresh_token)
  assert.is.not(second.access_token, first.access_token)
  const me = await app.kernel.inject({
    url: '/api/v1/me',
    headers: { authorization: `Bearer ${second.access_token}` },
  })
  assert.is(me.json<{ username: string }>().username, 'admin')
  assertError(await tokenRequest(app.kernel, refresh), 400, 'invalid_grant')
  const { refresh_token: _, ...missing } = refresh
  assertError(await tokenRequest(app.kernel, missing), 400, 'invalid_request')
})

test('other methods: 405 with Allow: POST', async ({ app }) => {
  const res = await app.kernel.inject({ url: '/api/oauth/token' })
  assert.is(res.status, 405)
  assert.is(res.headers.allow, 'POST')
})

test('keys missing: 500 {error: "server_error"} and a logged reason naming the file', async ({
  app,
}) => {
  renameSync(app.privateKey, `${app.privateKey}.away`)
  try {
    const res = await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))
    assert.is(res.status, 500)
    assert.is(res.json<{ error: string }>().error, 'server_error')
    assert.is(res.headers['cache-control'], 'no-store')
    const logged = app.logger.entries.find(
      (e) => e.level === 'error' && e.message.includes(app.privateKey),
    )
    assert.ok(logged, JSON.stringify(app.logger.entries))
    assert.ok(logged!.message.includes('missing or unreadable'))
  } finally {
    renameSync(`${app.privateKey}.away`, app.privateKey)
  }
  assert.is((await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))).status, 200)
})

test('the access token carries no password or client credentials', async ({ app }) => {
  const body = (
    await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))
  ).json<TokenBody>()
  const payload = payloadOf(body.access_token)
  assert.not.ok('password' in payload || 'client_id' in payload)
})

test.run()

const off = suite<{ app: OAuthApp }>('auth oauth feature switch', {} as { app: OAuthApp })

off.before(async (context) => {
  context.app = await createOAuthApp({ features: [] })
})
off.after(async ({ app }) => app.close())

off(
  'feature off: /api/oauth/token does not exist (404), keys:generate still offered',
  async ({ app }) => {
    const res = await tokenRequest(app.kernel, passwordGrant('admin', 'admin-pass'))
    assert.is(res.status, 404)
    assert.is((await app.kernel.inject({ url: '/api/oauth/token' })).status, 404)
    const { code } = await runContributed(app.kernel, ['keys:generate'])
    assert.is(code, 0)
  },
)

off('the feature name is case-insensitive', async () => {
  await withOAuthApp(
    async (app) => {
      const res = await tokenRequest(app.kernel, {})
      assert.is(res.status, 400)
      assert.is(res.json<{ error: string }>().error, 'invalid_request')
    },
    { features: ['Authorization-Server'] },
  )
})

off.run()
