import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { html, json, text } from 'fw'
import { createTestKernel } from 'fw/testing'
import type { UserConfig } from 'fw'
import { listening } from '../fixtures/listening.js'

const test = suite('http hygiene')

function app(config: UserConfig = {}) {
  const kernel = createTestKernel({ config })
  kernel.router.get('page', () => html('<!doctype html><title>p</title><p>hi</p>'))
  kernel.router.get('data', () => json({ ok: true }))
  kernel.router.get('plain', () => text('hi'))
  kernel.router.get('framed', () => html('<p>x</p>').header('x-frame-options', 'SAMEORIGIN'))
  kernel.router.get('scheme', (ctx) => json({ secure: ctx.secure }))
  kernel.router.get('client', (ctx) => json({ ip: ctx.ip, host: ctx.header('host') }))
  return kernel
}

/** Writes raw request bytes and reads until the server closes (or 2 s pass). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => socket.write(request))
    let out = ''
    socket.on('data', (c: Buffer) => (out += c.toString()))
    socket.on('error', () => undefined)
    socket.on('close', () => resolve(out))
    setTimeout(() => socket.destroy(), 2000).unref()
  })
}

test('every response says nosniff; HTML pages also refuse framing and trim the referrer', async () => {
  const kernel = app()
  for (const url of ['/data', '/plain', '/page', '/nowhere'])
    assert.is((await kernel.inject(url)).headers['x-content-type-options'], 'nosniff', url)
  const page = await kernel.inject('/page')
  assert.is(page.headers['x-frame-options'], 'DENY')
  assert.is(page.headers['referrer-policy'], 'strict-origin-when-cross-origin')
  const data = await kernel.inject('/data')
  assert.is(data.headers['x-frame-options'], undefined)
  assert.is(data.headers['referrer-policy'], undefined)
  // The HTML error page is a page too.
  const missing = await kernel.inject({ url: '/nowhere', headers: { accept: 'text/html' } })
  assert.is(missing.headers['x-frame-options'], 'DENY')
})

test('a header the app set itself is kept', async () => {
  const res = await app().inject('/framed')
  assert.is(res.headers['x-frame-options'], 'SAMEORIGIN')
})

test('http.security_headers configures each header; an empty value leaves it out', async () => {
  const kernel = app({
    http: {
      security_headers: {
        frame_options: '',
        content_security_policy: "frame-ancestors 'none'",
        referrer_policy: 'no-referrer',
      },
    },
  })
  const page = await kernel.inject('/page')
  assert.is(page.headers['x-frame-options'], undefined)
  assert.is(page.headers['content-security-policy'], "frame-ancestors 'none'")
  assert.is(page.headers['referrer-policy'], 'no-referrer')
  assert.is(page.headers['x-content-type-options'], 'nosniff')
})

test('the headers are on the wire too, and a request with two Host headers gets 400', async () => {
  const kernel = app()
  await listening(kernel, async (port) => {
    const res = await fetch(`http://127.0.0.1:${port}/page`)
    assert.is(res.headers.get('x-content-type-options'), 'nosniff')
    assert.is(res.headers.get('x-frame-options'), 'DENY')
    const two = await raw(port, 'GET /data HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n')
    assert.match(two, /^HTTP\/1\.1 400 /)
    assert.match(two, /connection: close/i)
    assert.match(two, /x-content-type-options: nosniff/i)
    assert.match(two, '"bad_request"')
    const casing = await raw(port, 'GET /data HTTP/1.1\r\nhost: a.test\r\nHOST: a.test\r\n\r\n')
    assert.match(casing, /^HTTP\/1\.1 400 /)
    const one = await raw(port, 'GET /data HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n')
    assert.match(one, /^HTTP\/1\.1 200 /)
  })
})

const HSTS = { max_age: 31_536_000, include_subdomains: true, preload: true }

test('HSTS goes on every response to an HTTPS request once max_age is set, never over HTTP', async () => {
  const kernel = app({ http: { security_headers: { hsts: HSTS } } })
  for (const url of ['/data', '/page', '/nowhere']) {
    const secure = await kernel.inject({ url, secure: true })
    assert.is(
      secure.headers['strict-transport-security'],
      'max-age=31536000; includeSubDomains; preload',
      url,
    )
    assert.is((await kernel.inject(url)).headers['strict-transport-security'], undefined, url)
  }
  const plain = app({ http: { security_headers: { hsts: { max_age: 600 } } } })
  const res = await plain.inject({ url: '/data', secure: true })
  assert.is(res.headers['strict-transport-security'], 'max-age=600')
  // Off by default.
  const off = await app().inject({ url: '/data', secure: true })
  assert.is(off.headers['strict-transport-security'], undefined)
})

test('HSTS on the socket: behind a trusted proxy saying https, static files too; a client saying it gets none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-hsts-'))
  writeFileSync(join(dir, 'a.txt'), 'static')
  try {
    for (const trust of [false, true]) {
      const kernel = app({ http: { trust_proxy: trust, security_headers: { hsts: HSTS } } })
      kernel.static('files', dir)
      const { url } = await kernel.listen(0, '127.0.0.1')
      try {
        for (const path of ['/data', '/files/a.txt']) {
          const res = await fetch(`${url}${path}`, { headers: { 'x-forwarded-proto': 'https' } })
          assert.is(res.status, 200, path)
          assert.is(
            res.headers.get('strict-transport-security'),
            trust ? 'max-age=31536000; includeSubDomains; preload' : null,
            `${path}, trust_proxy ${trust}`,
          )
        }
      } finally {
        await kernel.close(500)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

// A forwarded header counts only behind a trusted proxy, over a real socket. One row a header: its
// value, the route that answers what the request made of it, and that answer by trust_proxy.
const FORWARDED: [
  header: string,
  value: string,
  path: string,
  answer: (trust: boolean, port: number) => object,
][] = [
  ['x-forwarded-proto', 'https', '/scheme', (trust) => ({ secure: trust })],
  [
    'x-forwarded-for',
    '203.0.113.7, 10.0.0.1',
    '/client',
    (trust, port) => ({ ip: trust ? '203.0.113.7' : '127.0.0.1', host: `127.0.0.1:${port}` }),
  ],
]

for (const [header, value, path, answer] of FORWARDED)
  test(`${header} counts only behind a trusted proxy, over a real socket`, async () => {
    for (const trust of [false, true]) {
      const kernel = app({ http: { trust_proxy: trust } })
      await listening(kernel, async (port) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { [header]: value } })
        assert.equal(await res.json(), answer(trust, port), `trust_proxy ${trust}`)
      })
    }
  })

test.run()
