import { createHmac, hkdfSync } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import jwt from 'jsonwebtoken'
import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import type { Kernel } from 'fw'
import { eventsOf, expectEvent } from 'fw/testing'
import { AuthToken } from 'fw/plugins/auth'
import { APP_KEY, createAuthApp, login, payloadOf } from './fixtures.js'

const test = appSuite('auth tokens', createAuthApp)

async function tokenOf(kernel: Kernel, username = 'admin'): Promise<string> {
  const res = await login(kernel, username, `${username}-pass`)
  return res.json<{ access_token: string }>().access_token
}

async function whoami(kernel: Kernel, headers: Record<string, string>) {
  const res = await kernel.inject({ url: '/probe/whoami', headers })
  return { res, identity: res.json<{ identity: Record<string, unknown> | null }>().identity }
}

function b64(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

test('authenticates Authorization: Bearer (any scheme case), accessToken and the deprecated userAuth', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel)
  for (const [headers, via, source] of [
    [{ authorization: `Bearer ${token}` }, 'accessToken', 'Authorization'],
    [{ authorization: `bEaReR ${token}` }, 'accessToken', 'Authorization'],
    [{ accesstoken: token }, 'accessToken', 'accessToken'],
    [{ userauth: token }, 'userAuth', 'userAuth'],
  ] as const) {
    const { res, identity } = await whoami(app.kernel, headers)
    assert.is(identity?.id, 1, JSON.stringify(headers).slice(0, 20))
    assert.is(identity?.username, 'admin')
    assert.is(identity?.usertype, 100)
    assert.is(identity?.via, via)
    const event = expectEvent(res.events, 'auth.resolved')
    assert.equal(event.user, { id: 1, username: 'admin', usertype: 100 })
    assert.is(event.credential, via)
    assert.is(event.source, source)
    assert.is(event.expires, null)
    assert.not.ok(JSON.stringify(res.events).includes(token), 'the token never enters the log')
  }
})

test('records anonymous when no credential is presented', async ({ app }) => {
  const { res, identity } = await whoami(app.kernel, {})
  assert.is(identity, null)
  assert.equal(expectEvent(res.events, 'auth.resolved'), {
    user: null,
    credential: null,
    source: null,
    expires: null,
  })
})

test('refuses a token after logout, on every header, and answers logout 200 {status: "ok"}', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel, 'user')
  assert.is((await whoami(app.kernel, { accesstoken: token })).identity?.username, 'user')
  const out = await app.kernel.inject({
    method: 'POST',
    url: '/account/logout',
    headers: { authorization: `bearer ${token}` },
  })
  assert.is(out.status, 200)
  assert.equal(out.json(), { status: 'ok' })
  assert.is(expectEvent(out.events, 'auth.resolved').user, null)
  for (const h of ['authorization', 'accesstoken', 'userauth']) {
    const { res, identity } = await whoami(app.kernel, {
      [h]: h === 'authorization' ? `Bearer ${token}` : token,
    })
    assert.is(identity, null, h)
    assert.is(expectEvent(res.events, 'auth.resolved').refused, 'revoked')
  }
  const row = await app.kernel
    .plugin('database')
    .em()
    .findOneOrFail(AuthToken, { id: payloadOf(token).jti as string })
  assert.is(row.revoked, true)
})

test('answers logout 200 {status: "ok"} without a token, and with a token that does not verify', async ({
  app,
}) => {
  for (const headers of [{}, { accesstoken: 'garbage' }, { authorization: 'Bearer a.b.c' }]) {
    const res = await app.kernel.inject({ method: 'POST', url: '/account/logout', headers })
    assert.is(res.status, 200)
    assert.equal(res.json(), { status: 'ok' })
  }
})

test('refuses alg none, a forged signature, an edited payload, and HS256 under a wrong key', async ({
  app,
}) => {
  const token = await tokenOf(app.kernel, 'editor')
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = payloadOf(token)
  const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)
  const attacks: Record<string, string> = {
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
    'alg none, signature kept': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`,
    'forged signature': `${header}.${payload}.${flipped}`,
    'edited payload': `${header}.${b64({ ...claims, usertype: 100, username: 'admin', sub: '1', userid: 1 })}.${signature}`,
    'wrong key': jwt.sign(claims, 'not-the-key', { algorithm: 'HS256' }),
    // The raw application key is not the signing key either (the key is derived with HKDF).
    'raw application key': jwt.sign(claims, APP_KEY, { algorithm: 'HS256' }),
    'HS512 under the right key': jwt.sign(
      claims,
      Buffer.from(
        hkdfSync('sha256', Buffer.from(APP_KEY), Buffer.from('fw.auth.v1'), 'jwt-hs256', 32),
      ),
      { algorithm: 'HS512' },
    ),
    'signature over other bytes': `${header}.${payload}.${createHmac('sha256', 'x').update('y').digest('base64url')}`,
  }
  for (const [name, forged] of Object.entries(attacks)) {
    const { res, identity } = await whoami(app.kernel, { authorization: `Bearer ${forged}` })
    assert.is(identity, null, name)
    assert.is(expectEvent(res.events, 'auth.resolved').refused, 'invalid', name)
  }
  // The genuine token still works (the HKDF key above is the real one, only the alg was wrong).
  assert.is((await whoami(app.kernel, { accesstoken: token })).identity?.username, 'editor')
})

test('a token signed right but with a jti that has no row, or another user’s row, is refused', async ({
  app,
}) => {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(APP_KEY), Buffer.from('fw.auth.v1'), 'jwt-hs256', 32),
  )
  const real = payloadOf(await tokenOf(app.kernel, 'user'))
  const base = { ...real, iat: real.iat, nbf: real.nbf }
  const unknown = jwt.sign({ ...base, jti: '00000000-0000-4000-8000-000000000000' }, key)
  const otherSub = jwt.sign({ ...base, sub: '1', userid: 1, username: 'admin' }, key)
  assert.is((await whoami(app.kernel, { accesstoken: unknown })).identity, null)
  assert.is((await whoami(app.kernel, { accesstoken: otherSub })).identity, null)
})

test('a token in the query string authenticates nothing', async ({ app }) => {
  const token = await tokenOf(app.kernel)
  const res = await app.kernel.inject({ url: `/probe/whoami?accessToken=${token}` })
  assert.is(res.json<{ identity: unknown }>().identity, null)
})

for (const [name, ttl] of [
  ['unset', undefined],
  ['0', 0],
  ['negative', -5],
] as const) {
  test(`issues tokens that never expire when auth.token_ttl is ${name}`, async () => {
    const env: Record<string, string> =
      ttl === undefined ? {} : { FW_CONFIG: JSON.stringify({ auth: { token_ttl: ttl } }) }
    const app = await createAuthApp({ env })
    try {
      const token = await tokenOf(app.kernel)
      assert.is(payloadOf(token).exp, undefined)
      const row = await app.kernel
        .plugin('database')
        .em()
        .findOneOrFail(AuthToken, { id: payloadOf(token).jti as string })
      assert.is(row.expires, null)
      app.clock.t += 10 * 365 * 86_400_000
      assert.is((await whoami(app.kernel, { accesstoken: token })).identity?.username, 'admin')
    } finally {
      await app.close()
    }
  })
}

test('sets exp = iat + ttl and the row’s expires to it; refuses the token after exp (real wait)', async () => {
  const app = await createAuthApp({
    env: { FW_CONFIG: '{"auth":{"token_ttl":2}}' },
    realClock: true,
  })
  try {
    const token = await tokenOf(app.kernel)
    const claims = payloadOf(token)
    assert.is(claims.exp, (claims.iat as number) + 2)
    assert.is(claims.nbf, (claims.iat as number) - 43200)
    const row = await app.kernel
      .plugin('database')
      .em()
      .findOneOrFail(AuthToken, { id: claims.jti as string })
    assert.is(row.expires, claims.exp)
    const before = await whoami(app.kernel, { authorization: `Bearer ${token}` })
    assert.is(before.identity?.username, 'admin')
    assert.is(expectEvent(before.res.events, 'auth.resolved').expires, claims.exp)
    // Past exp (whole seconds: wait until the clock's second is beyond it).
    await sleep(Math.max(0, (claims.exp as number) * 1000 - Date.now()) + 1100)
    const after = await whoami(app.kernel, { authorization: `Bearer ${token}` })
    assert.is(after.identity, null)
    assert.is(eventsOf(after.res.events, 'auth.resolved')[0]!.data.refused, 'expired')
  } finally {
    await app.close()
  }
})

test.run()
