import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { issueGrantToken, parseTtl, verifyGrantToken } from 'fw/plugins/debug'
import { debugKernel, KEY, nowSeconds, setCookies, tokenFor } from './helpers.js'

const test = suite('debug: the grant, in production')

const prod = (o: Parameters<typeof debugKernel>[0] = {}) =>
  debugKernel({ development: false, ...o })

/** `GET url` with the grant cookie holding `token`. */
const withCookie = (kernel: ReturnType<typeof prod>, url: string, token: string) =>
  kernel.inject({ url, headers: { cookie: `fw_debug=${token}` } })

test('production without a grant: nothing attached, no request id, no headers', async () => {
  const kernel = prod()
  for (const url of ['/obj', '/page', '/none', '/go', '/boom', '/missing', '/arr']) {
    const res = await kernel.inject(url)
    for (const h of ['x-fw-debug', 'x-request-id', 'server-timing', 'vary', 'set-cookie'])
      // The kernel's own error replies (404, 500) vary on `Accept` only: no `Cookie`.
      assert.is(
        res.headers[h],
        h === 'vary' && ['/boom', '/missing'].includes(url) ? 'Accept' : undefined,
        `${url}: ${h}`,
      )
    assert.not.ok(res.body.includes('_debug'), `${url}: _debug`)
    assert.not.ok(res.body.includes('fw-debug-data'), `${url}: island`)
  }
  assert.is((await kernel.inject('/obj')).body, '{"a":1}')
  assert.is((await kernel.inject('/id')).json<{ id: unknown }>().id, null)
  assert.is((await kernel.inject('/_fw/debugbar.js')).status, 200)
  await kernel.close()
})

test('redeeming ?_debug=<token> sets the cookie and annotates that response; the cookie grants later', async () => {
  const kernel = prod()
  await kernel.boot()
  const api = kernel.plugin('debug')
  const { token, expires } = api.issueToken(600)!
  const res = await kernel.inject(`/obj?_debug=${token}`)
  const cookie = setCookies(res.headers)
  assert.is(cookie.length, 1)
  assert.is(
    cookie[0],
    `fw_debug=${token}; Path=/; Expires=${new Date(expires * 1000).toUTCString()}; HttpOnly; SameSite=Lax`,
  )
  assert.ok(res.json<{ _debug?: unknown }>()._debug, 'the redeeming response is annotated')
  assert.is(res.headers['cache-control'], 'no-store, private')
  assert.is(res.headers.vary, 'Cookie')
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{16}$/)
  const later = await withCookie(kernel, '/page', token)
  assert.ok(later.body.includes('id="fw-debug-data"'))
  assert.is(later.headers['cache-control'], 'no-store, private')
  assert.is(setCookies(later.headers).length, 0)
  // A grant opens the toolbar only: the error page stays a production page.
  const boom = await withCookie(kernel, '/boom', token)
  assert.is(boom.status, 500)
  assert.ok(boom.body.includes('It has been logged'))
  assert.not.ok(boom.body.split('fw-debug-data')[0]!.includes('secret failure message'))
  assert.not.ok(boom.body.split('fw-debug-data')[0]!.includes('at '), 'no stack trace')
  assert.ok(kernel.isDevelopment() === false && api.isDevelopment() === false)
  await kernel.close()
})

test('a grant in production answers no CORS: an annotated response stays same-origin', async () => {
  const kernel = prod()
  await kernel.boot()
  const { token } = kernel.plugin('debug').issueToken(600)!
  const origin = 'http://127.0.0.1:5173'
  const res = await kernel.inject({ url: `/obj?_debug=${token}`, headers: { origin } })
  assert.ok(res.json<{ _debug?: unknown }>()._debug, 'annotated')
  assert.is(res.headers['access-control-allow-origin'], undefined)
  assert.is(res.headers['timing-allow-origin'], undefined)
  const asset = await kernel.inject({ url: '/_fw/debugbar.mjs', headers: { origin } })
  assert.is(asset.headers['access-control-allow-origin'], undefined)
  await kernel.close()
})

test('the payload says the dev panel answers a grant holder; unknown for a guest (no identity asked)', async () => {
  const kernel = prod()
  const token = tokenFor(nowSeconds() + 600)
  const granted = await withCookie(kernel, '/obj', token)
  assert.is(granted.json<{ _debug: { devpanel: unknown } }>()._debug.devpanel, true)
  const dev = debugKernel({ development: true })
  const guest = await dev.inject('/obj')
  assert.is(guest.json<{ _debug: { devpanel: unknown } }>()._debug.devpanel, null)
  const noPanel = debugKernel({ development: true, features: ['debug'] })
  const without = await noPanel.inject('/obj')
  assert.is(without.json<{ _debug: { devpanel: unknown } }>()._debug.devpanel, false)
  await Promise.all([kernel.close(), dev.close(), noPanel.close()])
})

test('Secure over TLS', async () => {
  const kernel = prod()
  const token = tokenFor(nowSeconds() + 600)
  const res = await kernel.inject({ url: `/obj?_debug=${token}`, secure: true })
  assert.ok(setCookies(res.headers)[0]!.endsWith('; Secure'))
  const off = await kernel.inject({ url: '/obj?_debug=off', secure: true })
  assert.ok(setCookies(off.headers)[0]!.includes('; Secure'))
  await kernel.close()
})

/** The grant cookies a server on a socket sets for a request saying `X-Forwarded-Proto: https`. */
async function forwardedHttps(trustProxy: boolean): Promise<string[]> {
  const kernel = prod({ trustProxy })
  const { url } = await kernel.listen(0, '127.0.0.1')
  try {
    const cookies: string[] = []
    for (const query of [`_debug=${tokenFor(nowSeconds() + 600)}`, '_debug=off']) {
      const res = await fetch(`${url}/obj?${query}`, { headers: { 'x-forwarded-proto': 'https' } })
      cookies.push(...res.headers.getSetCookie())
    }
    return cookies
  } finally {
    await kernel.close()
  }
}

test('Secure behind a trusted proxy saying X-Forwarded-Proto: https', async () => {
  const cookies = await forwardedHttps(true)
  assert.is(cookies.length, 2)
  for (const cookie of cookies) assert.ok(cookie.includes('; Secure'), cookie)
})

test('not Secure when a client says X-Forwarded-Proto: https itself (no http.trust_proxy)', async () => {
  // Believing the client would let it pick the cookie's attributes; the session cookie ignores
  // the header the same way.
  const cookies = await forwardedHttps(false)
  assert.is(cookies.length, 2)
  for (const cookie of cookies) assert.not.ok(cookie.includes('Secure'), cookie)
})

test('refused: tampered expiry, foreign key, expired, beyond 12 h; no key means no grant', async () => {
  const kernel = prod()
  const good = tokenFor(nowSeconds() + 600)
  const tampered = `${nowSeconds() + 7200}.${good.split('.')[1]}`
  const foreign = tokenFor(nowSeconds() + 600, 'another-key')
  const expired = tokenFor(nowSeconds() - 1)
  const tooFar = tokenFor(nowSeconds() + 13 * 3600)
  for (const t of [tampered, foreign, expired, tooFar, 'garbage', `${good}x`]) {
    const res = await kernel.inject(`/obj?_debug=${encodeURIComponent(t)}`)
    assert.is(res.body, '{"a":1}', t)
    assert.is(res.headers['x-fw-debug'], undefined)
    assert.is(setCookies(res.headers).length, 0, 'a refused offer sets nothing')
  }
  assert.ok(
    verifyGrantToken(tokenFor(nowSeconds() + 12 * 3600), KEY) !== undefined,
    '12 h is allowed',
  )
  const nokey = prod({ key: undefined })
  const res = await nokey.inject(`/obj?_debug=${tokenFor(nowSeconds() + 600, '')}`)
  assert.is(res.body, '{"a":1}')
  assert.is(nokey.plugin('debug').issueToken(), undefined)
  assert.is(verifyGrantToken(good, undefined), undefined)
  await kernel.close()
  await nokey.close()
})

test('debug_token_secret signs instead of the app key; rotating the key ends grants', async () => {
  const kernel = prod({ debugTokenSecret: 'separate-secret' })
  const byKey = tokenFor(nowSeconds() + 600)
  const bySecret = tokenFor(nowSeconds() + 600, 'separate-secret')
  assert.is((await kernel.inject(`/obj?_debug=${byKey}`)).headers['x-fw-debug'], undefined)
  assert.ok((await kernel.inject(`/obj?_debug=${bySecret}`)).headers['x-fw-debug'])
  const rotated = prod({ key: 'a-brand-new-key-after-rotation' })
  const res = await withCookie(rotated, '/obj', byKey)
  assert.is(res.headers['x-fw-debug'], undefined)
  assert.ok(setCookies(res.headers)[0]!.startsWith('fw_debug=;'), 'a foreign cookie is cleared')
  await kernel.close()
  await rotated.close()
})

test('_debug=off clears the cookie and is not annotated; expired cookies are cleared', async () => {
  const kernel = prod()
  const token = tokenFor(nowSeconds() + 600)
  const off = await withCookie(kernel, '/obj?_debug=off', token)
  assert.is(off.body, '{"a":1}')
  assert.is(off.headers['x-fw-debug'], undefined)
  const cleared = setCookies(off.headers)[0]!
  assert.ok(cleared.startsWith('fw_debug=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'))
  assert.ok(cleared.includes('HttpOnly') && cleared.includes('SameSite=Lax'))
  const expired = await withCookie(kernel, '/obj', tokenFor(nowSeconds() - 5))
  assert.is(expired.headers['x-fw-debug'], undefined)
  assert.ok(setCookies(expired.headers)[0]!.startsWith('fw_debug=;'))
  // In development, off is not annotated either.
  const dev = debugKernel()
  assert.is((await dev.inject('/obj?_debug=off')).headers['x-fw-debug'], undefined)
  assert.ok((await dev.inject('/obj')).headers['x-fw-debug'])
  await kernel.close()
  await dev.close()
})

test('an invalid offered token does not clear a valid cookie', async () => {
  const kernel = prod()
  const token = tokenFor(nowSeconds() + 600)
  const res = await withCookie(
    kernel,
    `/obj?_debug=${tokenFor(nowSeconds() + 600, 'wrong')}`,
    token,
  )
  assert.is(setCookies(res.headers).length, 0)
  assert.ok(res.json<{ _debug?: unknown }>()._debug, 'still granted by the cookie')
  assert.ok(kernel.plugin('debug').hasDebugGrant !== undefined)
  await kernel.close()
})

test('hasDebugGrant and isDevelopment answer separately', async () => {
  const dev = debugKernel()
  dev.router.get('q', async (ctx) => ({
    grant: dev.plugin('debug').hasDebugGrant(ctx),
    dev: dev.plugin('debug').isDevelopment(),
  }))
  const token = tokenFor(nowSeconds() + 600)
  const inDev = (await dev.inject('/q')).json<{ grant: boolean; dev: boolean }>()
  assert.is(inDev.grant, false)
  assert.is(inDev.dev, true)
  const p = prod()
  p.router.get('q', async (ctx) => ({
    grant: p.plugin('debug').hasDebugGrant(ctx),
    dev: p.plugin('debug').isDevelopment(),
  }))
  const withGrant = (await p.inject(`/q?_debug=${token}`)).json<{ grant: boolean; dev: boolean }>()
  assert.is(withGrant.grant, true)
  assert.is(withGrant.dev, false)
  await dev.close()
  await p.close()
})

test('the feature must be listed', async () => {
  const kernel = debugKernel({ features: [] })
  const res = await kernel.inject('/obj')
  assert.is(res.body, '{"a":1}')
  assert.is(res.headers['x-fw-debug'], undefined)
  assert.is((await kernel.inject('/devpanel/logs?request=0123456789abcdef')).status, 404)
  await kernel.close()
})

test('issuing clamps the lifetime to 60 s … 12 h; --ttl forms parse', () => {
  assert.is(issueGrantToken(KEY, 5).ttl, 60)
  assert.is(issueGrantToken(KEY, 86400).ttl, 43200)
  assert.is(issueGrantToken(KEY).ttl, 3600)
  assert.equal(['90', '90s', '30m', '2h', '1d'].map(parseTtl), [90, 90, 1800, 7200, 86400])
  for (const bad of ['', 'abc', '1w', '-5', '1.5h', '2 h', 'h'])
    assert.is(parseTtl(bad), undefined, bad)
})

test.run()
