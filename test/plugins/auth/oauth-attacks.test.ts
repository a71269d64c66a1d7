// Forged RS256-era tokens against /api/v1/me: alg none, a forged signature, an edited payload,
// algorithm confusion (HS256 with the public key PEM as the HMAC secret), a foreign RSA key.
import { createHmac, createPrivateKey, createSign, generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { expectEvent } from 'fw/testing'
import { deriveKeys } from '../../../plugins/auth/app-key.js'
import { SigningKeyStore } from '../../../plugins/auth/oauth-keys.js'
import type { AuthRuntime } from '../../../plugins/auth/runtime.js'
import { readSignedToken } from '../../../plugins/auth/tokens.js'
import { APP_KEY } from './fixtures.js'
import {
  createOAuthApp,
  passwordGrant,
  runContributed,
  tokenRequest,
  type OAuthApp,
} from './oauth-fixtures.js'

const test = suite<{ app: OAuthApp; token: string; publicPem: string }>(
  'auth oauth attacks',
  {} as { app: OAuthApp; token: string; publicPem: string },
)

test.before(async (context) => {
  context.app = await createOAuthApp()
  assert.is((await runContributed(context.app.kernel, ['keys:generate'])).code, 0)
  context.publicPem = readFileSync(context.app.publicKey, 'utf8')
  // A genuine token of the least privileged user: the forgeries below reuse its stored `jti`, so
  // only the signature check stands between them and a valid row.
  const res = await tokenRequest(context.app.kernel, passwordGrant('user', 'user-pass'))
  assert.is(res.status, 200, res.body)
  context.token = res.json<{ access_token: string }>().access_token
})
test.after(async ({ app }) => app.close())

const b64 = (value: object | string): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

function partsOf(token: string): {
  header: Record<string, unknown>
  payload: Record<string, unknown>
  signature: string
} {
  const [h, p, s] = token.split('.') as [string, string, string]
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>,
    signature: s,
  }
}

/**
 * The signature layer alone (no database): the stored row's hash would refuse every forgery too,
 * so this is what shows that the signature check itself holds.
 */
function signatureLayer(
  app: OAuthApp,
): Pick<AuthRuntime, 'keys' | 'signingKeys' | 'issuer' | 'now'> {
  return {
    keys: deriveKeys(APP_KEY),
    signingKeys: new SigningKeyStore({ privateKey: app.privateKey, publicKey: app.publicKey }),
    issuer: 'playground',
    now: Date.now,
  }
}

async function assertRefused(app: OAuthApp, token: string, label: string): Promise<void> {
  const signed = readSignedToken(signatureLayer(app) as AuthRuntime, token)
  assert.equal(signed, { ok: false, reason: 'invalid' }, `${label} (signature layer)`)
  for (const headers of [{ authorization: `Bearer ${token}` }, { accesstoken: token }]) {
    const res = await app.kernel.inject({ url: '/api/v1/me', headers })
    assert.is(res.status, 401, `${label}: ${res.body}`)
    const event = expectEvent(res.events, 'auth.resolved')
    assert.is(event.user, null, label)
    assert.ok(event.refused !== undefined, label)
  }
  const check = await app.kernel.plugin('auth').verifyToken(token)
  assert.equal(check, { ok: false, reason: 'invalid' }, label)
}

test('the genuine token works (the baseline of the attacks)', async ({ app, token }) => {
  assert.ok(readSignedToken(signatureLayer(app) as AuthRuntime, token).ok)
  const res = await app.kernel.inject({
    url: '/api/v1/me',
    headers: { authorization: `Bearer ${token}` },
  })
  assert.is(res.status, 200)
  assert.is(res.json<{ username: string }>().username, 'user')
})

test('alg none (with and without a signature, any case) is refused', async ({ app, token }) => {
  const { payload, signature } = partsOf(token)
  for (const alg of ['none', 'None', 'NONE']) {
    const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}.`
    await assertRefused(app, unsigned, `alg ${alg}`)
    await assertRefused(app, `${b64({ alg, typ: 'JWT' })}.${b64(payload)}.${signature}`, alg)
  }
})

test('a forged signature is refused', async ({ app, token }) => {
  const [h, p, s] = token.split('.') as [string, string, string]
  const flipped = Buffer.from(s, 'base64url')
  flipped[10] = flipped[10]! ^ 0x01
  await assertRefused(app, `${h}.${p}.${flipped.toString('base64url')}`, 'one bit')
  await assertRefused(app, `${h}.${p}.${b64('x'.repeat(256))}`, 'garbage')
})

test('an edited payload (user → admin, a later exp) is refused', async ({ app, token }) => {
  const [h, , s] = token.split('.') as [string, string, string]
  const { payload } = partsOf(token)
  const admin = { ...payload, sub: '1', userid: 1, username: 'admin' }
  await assertRefused(app, `${h}.${b64(admin)}.${s}`, 'to admin')
  const later = { ...payload, exp: Number(payload.exp) + 86_400 }
  await assertRefused(app, `${h}.${b64(later)}.${s}`, 'later exp')
})

test('algorithm confusion: HS256 signed with the RS256 public key PEM as the secret is refused', async ({
  app,
  token,
  publicPem,
}) => {
  const { payload } = partsOf(token)
  for (const alg of ['HS256', 'HS384', 'HS512'] as const) {
    const hash = `sha${alg.slice(2)}`
    const head = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`
    // The PEM as it is on disk, and without its trailing newline (both classic variants).
    for (const secret of [publicPem, publicPem.trim()]) {
      const sig = createHmac(hash, secret).update(head).digest('base64url')
      await assertRefused(app, `${head}.${sig}`, `${alg} with the public key`)
    }
  }
})

test('an RS256 token signed with another RSA key is refused', async ({ app, token }) => {
  const { payload } = partsOf(token)
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const head = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(payload)}`
  const sig = createSign('RSA-SHA256').update(head).sign(privateKey).toString('base64url')
  await assertRefused(app, `${head}.${sig}`, 'foreign key')
})

test('an RS256 header on a token signed with the real key but another algorithm (PS256) is refused', async ({
  app,
  token,
}) => {
  const { payload } = partsOf(token)
  const key = createPrivateKey(readFileSync(app.privateKey, 'utf8'))
  const head = `${b64({ alg: 'PS256', typ: 'JWT' })}.${b64(payload)}`
  const sig = createSign('RSA-SHA256')
    .update(head)
    .sign({ key, padding: 6 /* RSA_PKCS1_PSS_PADDING */ })
    .toString('base64url')
  await assertRefused(app, `${head}.${sig}`, 'PS256')
})

test('the genuine token still works after all that', async ({ app, token }) => {
  const res = await app.kernel.inject({
    url: '/api/v1/me',
    headers: { authorization: `Bearer ${token}` },
  })
  assert.is(res.status, 200)
})

test.run()
