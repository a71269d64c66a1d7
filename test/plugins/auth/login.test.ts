import { createHash } from 'node:crypto'
import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import { eventsOf, expectEvent } from 'fw/testing'
import { AuthToken, hashPassword } from 'fw/plugins/auth'
import { postForm } from '../../fixtures/post-raw.js'
import { createAuthApp, login, payloadOf, setCookieLine } from './fixtures.js'

const test = appSuite('auth login', createAuthApp)

test('signs in a user without a second factor: 200 with a Bearer token and {id, username, email}', async ({
  app,
}) => {
  const res = await login(app.kernel, 'admin', 'admin-pass')
  assert.is(res.status, 200)
  const body = res.json<Record<string, unknown>>()
  assert.equal(Object.keys(body).sort(), ['access_token', 'status', 'token_type', 'user'])
  assert.is(body.status, 'success')
  assert.is(body.token_type, 'Bearer')
  assert.equal(body.user, { id: 1, username: 'admin', email: 'admin@playground.test' })
  assert.is(res.headers['cache-control'], 'no-store')
})

test('issues iss, sub, userid, username, jti, iat and nbf = iat − 43200, and no exp without a TTL', async ({
  app,
}) => {
  const res = await login(app.kernel, 'editor', 'editor-pass')
  const token = res.json<{ access_token: string }>().access_token
  const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as object
  assert.equal(header, { alg: 'HS256', typ: 'JWT' })
  const claims = payloadOf(token)
  assert.equal(Object.keys(claims).sort(), [
    'iat',
    'iss',
    'jti',
    'nbf',
    'sub',
    'userid',
    'username',
  ])
  assert.is(claims.iss, 'auth-test')
  assert.is(claims.sub, '2')
  assert.is(claims.userid, 2)
  assert.is(claims.username, 'editor')
  assert.is(claims.iat, Math.floor(app.clock.t / 1000))
  assert.is(claims.nbf, (claims.iat as number) - 43200)
  // The stored row: its id is the jti, its hash the token's sha256; never the token.
  const row = await app.kernel
    .plugin('database')
    .em()
    .findOneOrFail(AuthToken, { id: claims.jti as string })
  assert.is(row.token_hash, createHash('sha256').update(token).digest('hex'))
  assert.is(row.kind, 'access')
  assert.is(row.expires, null)
  assert.is(row.revoked, false)
})

test('matches the username case-insensitively and trimmed', async ({ app }) => {
  const res = await login(app.kernel, '  ADMIN ', 'admin-pass')
  assert.is(res.status, 200)
  assert.is(res.json<{ user: { username: string } }>().user.username, 'admin')
})

test('createUser takes a password already hashed with hashPassword(), and refuses anything else', async ({
  app,
}) => {
  const auth = app.kernel.plugin('auth')
  const em = app.kernel.plugin('database').em()
  const passwordHash = await hashPassword('prehashed-pass')
  await auth.createUser({ username: 'prehashed', passwordHash, email: 'p@x.test' }, em)
  assert.is((await login(app.kernel, 'prehashed', 'prehashed-pass')).status, 200)
  assert.is((await login(app.kernel, 'prehashed', passwordHash)).status, 401)
  for (const bad of [
    { passwordHash: 'prehashed-pass' },
    { passwordHash: '' },
    { password: '' },
    {},
  ])
    await auth.createUser({ username: 'refused', email: 'r@x.test', ...bad }, em).then(
      () => assert.unreachable(`accepted ${JSON.stringify(bad)}`),
      (error: { code?: string }) => assert.is(error.code, 'FW_ERR_AUTH_USER_INVALID'),
    )
})

test('accepts a form-encoded body', async ({ app }) => {
  const res = await postForm(app.kernel, '/account/login', 'username=user&password=user-pass')
  assert.is(res.status, 200)
})

test('answers a wrong password and an unknown user alike: 401 invalid_credentials', async ({
  app,
}) => {
  const wrong = await login(app.kernel, 'user', 'nope')
  const unknown = await login(app.kernel, 'nobody', 'nope')
  assert.is(wrong.status, 401)
  assert.is(unknown.status, 401)
  assert.is(wrong.body, '{"error":"invalid_credentials"}')
  assert.is(unknown.body, wrong.body)
  assert.equal(wrong.headers, unknown.headers)
})

test('spends about as long on an unknown user as on a wrong password (a dummy hash is verified)', async ({
  app,
}) => {
  // CPU time of the whole process (scrypt runs on libuv's threads, counted too), not wall time:
  // a loaded machine stretches the waits (the database, the thread pool's queue), not the work.
  const time = async (username: string): Promise<number> => {
    const started = process.cpuUsage()
    await login(app.kernel, username, 'not-the-password')
    const used = process.cpuUsage(started)
    return (used.user + used.system) / 1000
  }
  await time('ghost') // the dummy hash is made on first use
  const unknown: number[] = []
  const wrong: number[] = []
  for (let i = 0; i < 3; i++) {
    unknown.push(await time(`ghost-${i}`))
    wrong.push(await time(`editor`))
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!
  // Both run one scrypt (~50 ms of CPU); an early exit would take well under a tenth of it.
  assert.ok(median(unknown) > median(wrong) * 0.5, `${median(unknown)} vs ${median(wrong)}`)
  // editor now has failures; clear them with a sign-in so later tests start clean.
  await login(app.kernel, 'editor', 'editor-pass')
})

test('refuses empty credentials with 400 missing_credentials and counts no attempt', async ({
  app,
}) => {
  for (const body of [
    { username: '', password: 'x' },
    { username: 'user', password: '' },
    { username: '   ', password: 'x' },
    {},
    { username: { $ne: '' }, password: ['x'] },
  ]) {
    const res = await app.kernel.inject({ method: 'POST', url: '/account/login', body })
    assert.is(res.status, 400, JSON.stringify(body))
    assert.equal(res.json(), { error: 'missing_credentials' })
  }
  for (let i = 0; i < 5; i++)
    await app.kernel.inject({ method: 'POST', url: '/account/login', body: { username: 'user' } })
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
})

test('answers a two-factor user 401 two_factor_required with methods and a pending-login cookie', async ({
  app,
}) => {
  const res = await login(app.kernel, 'alice', 'alice-pass')
  assert.is(res.status, 401)
  assert.equal(res.json(), { error: 'two_factor_required', methods: ['totp'] })
  const cookie = setCookieLine(res.headers['set-cookie'], 'fw_2fa')
  assert.match(cookie, /HttpOnly/)
  assert.match(cookie, /SameSite=Lax/)
  assert.match(cookie, /Max-Age=300/)
  assert.not.match(cookie, /Secure/)
})

test("answers 405 method_not_allowed with Allow: POST for other methods: the kernel's own reply", async ({
  app,
}) => {
  for (const url of ['/account/login', '/account/login2fa', '/account/logout']) {
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']) {
      const res = await app.kernel.inject({ method, url, headers: { accept: 'application/json' } })
      assert.is(res.status, 405, `${method} ${url}`)
      if (method !== 'HEAD')
        assert.equal(res.json(), { error: 'method_not_allowed', allowed: ['POST'] })
      assert.is(res.headers.allow, 'POST')
    }
    const page = await app.kernel.inject({ url, headers: { accept: 'text/html' } })
    assert.is(page.status, 405)
    assert.is(page.headers.allow, 'POST')
    assert.match(String(page.headers['content-type']), 'text/html')
  }
  // No catch-all routes: the router declares POST alone on each.
  const declared = app.kernel.router
    .routes()
    .filter((r) => r.path.startsWith('account/'))
    .map((r) => `${r.methods.join('|')} ${r.path}`)
  assert.equal(declared, ['POST account/login', 'POST account/login2fa', 'POST account/logout'])
})

test('records the identity a login created, and never the token', async ({ app }) => {
  const res = await login(app.kernel, 'admin', 'admin-pass')
  const token = res.json<{ access_token: string }>().access_token
  const event = expectEvent(res.events, 'auth.resolved')
  assert.equal(event.user, { id: 1, username: 'admin', usertype: 100 })
  assert.is(event.credential, 'accessToken')
  assert.is(event.action, 'login')
  assert.is(event.claims?.username, 'admin')
  assert.not.ok(JSON.stringify(res.events).includes(token))
  assert.not.ok(JSON.stringify(res.events).includes(token.split('.')[2]!))
  assert.is(eventsOf(res.events, 'auth.resolved').length, 1)
})

test('answers 500 token_unavailable without an application key', async () => {
  const app = await createAuthApp({ env: { FW_APP_KEY: '' } })
  try {
    const res = await login(app.kernel, 'admin', 'admin-pass')
    assert.is(res.status, 500)
    assert.equal(res.json(), { error: 'token_unavailable' })
    const code = await app.kernel.inject({
      method: 'POST',
      url: '/account/login2fa',
      body: { code: '123456' },
    })
    assert.equal(code.json(), { error: 'token_unavailable' })
    // The seed still ran: every user exists; alice's second factor waits for a key to seal it.
    assert.ok(await app.kernel.plugin('auth').findUser('admin'))
    assert.is((await app.kernel.plugin('auth').findUser('alice'))?.totp_secret, 'pending-seal')
  } finally {
    await app.close()
  }
})

test.run()
