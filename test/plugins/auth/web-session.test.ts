import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import type { Kernel } from 'fw'
import { expectEvent } from 'fw/testing'
import { ALICE_SECRET, cookieFrom, createAuthApp, setCookieLine, totpAt } from './fixtures.js'

const test = appSuite('auth web session', createAuthApp)

interface Form {
  csrf: string
  formCookie: string
}

async function openForm(kernel: Kernel, url = '/login'): Promise<Form & { body: string }> {
  const res = await kernel.inject(url)
  assert.is(res.status, 200)
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1]
  return {
    csrf: csrf!,
    formCookie: cookieFrom(res.headers['set-cookie'], 'fw_login_csrf')!,
    body: res.body,
  }
}

function submit(
  kernel: Kernel,
  form: Form,
  fields: Record<string, string>,
  cookies: Record<string, string> = {},
  secure = false,
) {
  return kernel.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: form.csrf, ...fields }).toString(),
    cookies: { fw_login_csrf: form.formCookie, ...cookies },
    secure,
  })
}

/** The sign-in form sent as `username` (password `<username>-pass`), asking to return to `to`. */
function signInTo(kernel: Kernel, form: Form, username: string, to: string) {
  return submit(kernel, form, { username, password: `${username}-pass`, return: to })
}

/** Signs in through the form; answers the session cookie value. */
async function signIn(kernel: Kernel, username = 'editor'): Promise<string> {
  const form = await openForm(kernel)
  const res = await submit(kernel, form, { username, password: `${username}-pass` })
  assert.is(res.status, 303)
  return cookieFrom(res.headers['set-cookie'], 'fw_session')!
}

async function csrfOf(kernel: Kernel, session: string): Promise<string> {
  const page = await kernel.inject({ url: '/login', cookies: { fw_session: session } })
  return /<meta name="csrf" content="([^"]+)">/.exec(page.body)![1]!
}

test('serves the sign-in form in the layout, with a CSRF field and no csrf meta for a visitor', async ({
  app,
}) => {
  const res = await app.kernel.inject('/login?return=/products')
  assert.is(res.status, 200)
  assert.match(res.body, '<title>Sign in · fw playground</title>')
  assert.match(res.body, /<form method="post" action="\/login"/)
  assert.match(res.body, /name="_csrf" value="[\w-]{43}"/)
  assert.match(res.body, 'name="return" value="/products"')
  assert.not.match(res.body, 'name="csrf"')
  assert.match(setCookieLine(res.headers['set-cookie'], 'fw_login_csrf'), /HttpOnly; SameSite=Lax/)
})

test('refuses a sign-in form without its CSRF token (403) and opens no session', async ({
  app,
}) => {
  const form = await openForm(app.kernel)
  for (const bad of [
    { ...form, csrf: '' },
    { ...form, csrf: 'x'.repeat(43) },
    { ...form, formCookie: 'other' },
  ]) {
    const res = await submit(app.kernel, bad, { username: 'editor', password: 'editor-pass' })
    assert.is(res.status, 403)
    assert.is(cookieFrom(res.headers['set-cookie'], 'fw_session'), undefined)
  }
})

test('opens a web session: HttpOnly, SameSite=Lax, Secure over TLS, a 303 to the return path', async ({
  app,
}) => {
  const form = await openForm(app.kernel)
  const plain = await signInTo(app.kernel, form, 'editor', '/products?page=2')
  assert.is(plain.status, 303)
  assert.is(plain.headers.location, '/products?page=2')
  const line = setCookieLine(plain.headers['set-cookie'], 'fw_session')
  assert.match(line, /HttpOnly/)
  assert.match(line, /SameSite=Lax/)
  assert.not.match(line, /Secure/)
  const tls = await submit(
    app.kernel,
    form,
    { username: 'editor', password: 'editor-pass' },
    {},
    true,
  )
  assert.match(setCookieLine(tls.headers['set-cookie'], 'fw_session'), /; Secure/)
  assert.is(tls.headers.location, '/')
  assert.is(expectEvent(plain.events, 'auth.resolved').action, 'web-login')
})

/** `return=` values that lead off the site, raw or once resolved (`/x/..//evil.test` → `//evil.test`). */
const OFF_SITE = [
  '//evil.test',
  'https://evil.test/',
  '/\\evil.test',
  '/%2F%2Fevil.test',
  '%2F%2Fevil.test',
  '/%5Cevil.test',
  '\\\\evil.test',
  '/\t/evil.test',
  '/x/..//evil.test',
  '/.//evil.test',
  '/..//evil.test',
  '/%2e//evil.test',
  '/%2e%2e/%2e%2e//evil.test',
  '/x/..//evil.test/account?next=1#top',
  '/a/b/../..//evil.test/path',
  // Each resolves to `//evil.test` once decoded twice or three times.
  '/%252e%252e//evil.test',
  '/%25252e%25252e//evil.test',
  '/%252f%252fevil.test',
  '/%255c%255cevil.test',
]

test('never redirects off the site, whatever return= holds', async ({ app }) => {
  const form = await openForm(app.kernel)
  for (const attempt of OFF_SITE) {
    const res = await signInTo(app.kernel, form, 'user', attempt)
    assert.is(res.status, 303)
    assert.is(res.headers.location, '/', attempt)
  }
  for (const attempt of [
    '%2F%2Fevil.test',
    '/x/..//evil.test',
    '/.//evil.test',
    '/%252e%252e//evil.test',
  ]) {
    const page = await app.kernel.inject(`/login?return=${encodeURIComponent(attempt)}`)
    assert.match(page.body, 'name="return" value=""', attempt)
  }
})

test('the second-factor step never redirects off the site either', async ({ app }) => {
  const form = await openForm(app.kernel)
  for (const attempt of OFF_SITE) {
    const first = await signInTo(app.kernel, form, 'alice', attempt)
    assert.is(first.status, 200)
    assert.match(first.body, 'name="return" value=""', attempt)
    const pending = cookieFrom(first.headers['set-cookie'], 'fw_2fa')!
    // A fresh time step for each code: a code is accepted once.
    app.clock.t = (Math.floor(app.clock.t / 30_000) + 3) * 30_000
    const done = await submit(
      app.kernel,
      form,
      { step: 'code', code: totpAt(ALICE_SECRET, app.clock.t), return: attempt },
      { fw_2fa: pending },
    )
    assert.is(done.status, 303, attempt)
    assert.is(done.headers.location, '/', attempt)
  }
})

test('puts <meta name="csrf"> and pfApiHeaders into signed-in pages', async ({ app }) => {
  const session = await signIn(app.kernel)
  const page = await app.kernel.inject({ url: '/', cookies: { fw_session: session } })
  assert.match(page.body, /<meta name="csrf" content="[\w-]{43}">/)
  assert.match(page.body, 'function pfApiHeaders(extra)')
  assert.ok(page.body.indexOf('name="csrf"') < page.body.indexOf('</head>'))
  assert.is(page.headers['cache-control'], 'no-store, private')
  const visitor = await app.kernel.inject('/')
  assert.not.match(visitor.body, 'name="csrf"')
})

test('records the session phase: the time spent loading the web session of a request', async ({
  app,
}) => {
  const session = await signIn(app.kernel)
  const res = await app.kernel.inject({ url: '/probe/whoami', cookies: { fw_session: session } })
  const phases = res.events.filter(
    (e) => e.type === 'phase.completed' && (e.data as { name: string }).name === 'session',
  )
  assert.is(phases.length, 1)
  const { start, duration } = phases[0]!.data as { start: number; duration: number }
  assert.ok(start >= 0 && duration >= 0 && phases[0]!.at >= start + duration - 0.001)
  // No cookie, no session to load: no phase.
  const anonymous = await app.kernel.inject('/probe/whoami')
  assert.not.ok(
    anonymous.events.some(
      (e) => e.type === 'phase.completed' && (e.data as { name: string }).name === 'session',
    ),
  )
})

test('identifies a session on GET by its cookie; a state-changing call needs X-CSRF-Token', async ({
  app,
}) => {
  const session = await signIn(app.kernel)
  const csrf = await csrfOf(app.kernel, session)
  const get = await app.kernel.inject({ url: '/probe/whoami', cookies: { fw_session: session } })
  const getIdentity = get.json<{ identity: Record<string, unknown> }>().identity
  assert.is(getIdentity.username, 'editor')
  assert.is(getIdentity.via, 'session')
  assert.is(getIdentity.csrf, false)
  for (const method of ['POST', 'DELETE']) {
    const cookieOnly = await app.kernel.inject({
      method,
      url: '/probe/whoami',
      cookies: { fw_session: session },
    })
    assert.is(cookieOnly.json<{ identity: unknown }>().identity, null, method)
    assert.is(expectEvent(cookieOnly.events, 'auth.resolved').refused, 'csrf')
    const wrong = await app.kernel.inject({
      method,
      url: '/probe/whoami',
      cookies: { fw_session: session },
      headers: {
        'x-csrf-token':
          `${csrf.slice(0, -1)}A` === csrf ? `${csrf.slice(0, -1)}B` : `${csrf.slice(0, -1)}A`,
      },
    })
    assert.is(wrong.json<{ identity: unknown }>().identity, null)
    const ok = await app.kernel.inject({
      method,
      url: '/probe/whoami',
      cookies: { fw_session: session },
      headers: { 'x-csrf-token': csrf },
    })
    const identity = ok.json<{ identity: Record<string, unknown> }>().identity
    assert.is(identity.username, 'editor')
    assert.is(identity.csrf, true)
  }
})

test('a CSRF token of one session does not open another', async ({ app }) => {
  const a = await signIn(app.kernel, 'editor')
  const b = await signIn(app.kernel, 'user')
  const res = await app.kernel.inject({
    method: 'POST',
    url: '/probe/whoami',
    cookies: { fw_session: b },
    headers: { 'x-csrf-token': await csrfOf(app.kernel, a) },
  })
  assert.is(res.json<{ identity: unknown }>().identity, null)
})

test('signs out only with the CSRF token; afterwards the cookie identifies nobody', async ({
  app,
}) => {
  const session = await signIn(app.kernel)
  const csrf = await csrfOf(app.kernel, session)
  const forged = await app.kernel.inject({
    method: 'POST',
    url: '/logout',
    cookies: { fw_session: session },
  })
  assert.is(forged.status, 403)
  const stillIn = await app.kernel.inject({
    url: '/probe/whoami',
    cookies: { fw_session: session },
  })
  assert.ok(stillIn.json<{ identity: unknown }>().identity)
  const out = await app.kernel.inject({
    method: 'POST',
    url: '/logout',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `_csrf=${csrf}`,
    cookies: { fw_session: session },
  })
  assert.is(out.status, 303)
  assert.is(out.headers.location, '/login')
  assert.match(setCookieLine(out.headers['set-cookie'], 'fw_session'), /Max-Age=0/)
  const after = await app.kernel.inject({ url: '/probe/whoami', cookies: { fw_session: session } })
  assert.is(after.json<{ identity: unknown }>().identity, null)
  assert.is(expectEvent(after.events, 'auth.resolved').refused, 'revoked')
})

test('signs a two-factor user in through the form in two steps', async ({ app }) => {
  const form = await openForm(app.kernel)
  const first = await signInTo(app.kernel, form, 'alice', '/products')
  assert.is(first.status, 200)
  assert.match(first.body, 'name="code"')
  assert.match(first.body, 'name="return" value="/products"')
  const pending = cookieFrom(first.headers['set-cookie'], 'fw_2fa')!
  const wrong = await submit(
    app.kernel,
    form,
    { step: 'code', code: '000000' },
    { fw_2fa: pending },
  )
  assert.is(wrong.status, 401)
  app.clock.t = (Math.floor(app.clock.t / 30_000) + 5) * 30_000
  const done = await submit(
    app.kernel,
    form,
    { step: 'code', code: totpAt(ALICE_SECRET, app.clock.t), return: '/products' },
    { fw_2fa: pending },
  )
  assert.is(done.status, 303)
  assert.is(done.headers.location, '/products')
  assert.ok(cookieFrom(done.headers['set-cookie'], 'fw_session'))
})

test.run()
