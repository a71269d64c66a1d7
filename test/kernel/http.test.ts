import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { request } from 'node:http'
import { enterMaintenance, HttpError, json, leaveMaintenance, text } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('http')
const JSON_CLIENT = { accept: 'application/json' }
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

function app(env: NodeJS.ProcessEnv = {}) {
  const kernel = createTestKernel({ env, config: { http: { body_limit: 1024 } } })
  kernel.router.get('things', () => [{ id: 1 }])
  kernel.router.post('things', async (ctx) => json({ got: await ctx.body() }, 201))
  kernel.router.get('boom', () => {
    throw new Error('database password is hunter2')
  })
  return kernel
}

/** POST /things with `body` as it is sent, of the content type `type`. */
function postThings(kernel: ReturnType<typeof app>, type: string, body: string) {
  return kernel.inject({ method: 'POST', url: '/things', headers: { 'content-type': type }, body })
}

test('answers 404 as JSON to a JSON client and as an HTML page to a browser', async () => {
  const kernel = app()
  const a = await kernel.inject({ url: '/nowhere', headers: JSON_CLIENT })
  assert.is(a.status, 404)
  assert.equal(a.json(), { error: 'not_found' })
  const b = await kernel.inject({ url: '/nowhere', headers: BROWSER })
  assert.is(b.status, 404)
  assert.match(String(b.headers['content-type']), 'text/html')
  assert.match(b.body, '</body>')
})

test('treats an XMLHttpRequest as a JSON client', async () => {
  const res = await app().inject({
    url: '/nowhere',
    headers: { 'x-requested-with': 'XMLHttpRequest' },
  })
  assert.equal(res.json(), { error: 'not_found' })
})

test('answers 405 with Allow when the path exists for other methods', async () => {
  const res = await app().inject({ method: 'DELETE', url: '/things', headers: JSON_CLIENT })
  assert.is(res.status, 405)
  assert.is(res.headers.allow, 'GET, HEAD, POST')
  assert.equal(res.json(), { error: 'method_not_allowed', allowed: ['GET', 'HEAD', 'POST'] })
})

test('sends HEAD without a body but with the length a GET would have', async () => {
  const kernel = app()
  const get = await kernel.inject('/things')
  const head = await kernel.inject({ method: 'HEAD', url: '/things' })
  assert.is(head.status, 200)
  assert.is(head.body, '')
  assert.is(head.headers['content-length'], get.headers['content-length'])
})

test('parses a JSON body', async () => {
  const res = await app().inject({ method: 'POST', url: '/things', body: { name: 'x', n: [1, 2] } })
  assert.is(res.status, 201)
  assert.equal(res.json(), { got: { name: 'x', n: [1, 2] } })
})

test('parses a form body with nested keys', async () => {
  const res = await postThings(
    app(),
    'application/x-www-form-urlencoded',
    'a[b][0]=x&a[b][1]=y&c=1&user%5Bname%5D=ada',
  )
  assert.equal(res.json(), { got: { a: { b: ['x', 'y'] }, c: '1', user: { name: 'ada' } } })
})

test('answers 400 with a JSON error for a malformed JSON body, never 500', async () => {
  const res = await postThings(app(), 'application/json', '{"name":')
  assert.is(res.status, 400)
  assert.equal(res.json(), {
    error: 'malformed_body',
    message: 'The request body is not valid JSON.',
  })
})

test('answers 413 for a body over the limit, by declared length or by bytes read', async () => {
  const kernel = app()
  const big = 'x'.repeat(2000)
  const res = await postThings(kernel, 'text/plain', big)
  assert.is(res.status, 413)
  assert.is(res.json<{ error: string }>().error, 'payload_too_large')
})

test('answers 415 for a multipart body', async () => {
  const res = await postThings(app(), 'multipart/form-data; boundary=x', '--x--')
  assert.is(res.status, 415)
})

test('keeps prototype keys out of parsed form bodies', async () => {
  const res = await postThings(
    app(),
    'application/x-www-form-urlencoded',
    '__proto__[admin]=1&constructor[prototype][x]=1',
  )
  assert.is(res.status, 201)
  assert.is(({} as Record<string, unknown>).admin, undefined)
})

test('hides an internal error from a JSON client outside development', async () => {
  const kernel = app()
  const res = await kernel.inject({ url: '/boom', headers: JSON_CLIENT })
  assert.is(res.status, 500)
  assert.equal(res.json(), { error: 'unavailable' })
  assert.not.match(res.body, 'hunter2')
  assert.is(kernel.logger.entries[0]!.message, 'request failed')
})

test('hides an internal error from a browser outside development', async () => {
  const res = await app().inject({ url: '/boom', headers: BROWSER })
  assert.is(res.status, 500)
  assert.match(String(res.headers['content-type']), 'text/html')
  assert.not.match(res.body, 'hunter2')
  assert.not.match(res.body, 'at ')
})

test('shows the message and stack of an internal error in development', async () => {
  const res = await app({ FW_DEBUG: '1' }).inject({ url: '/boom', headers: BROWSER })
  assert.is(res.status, 500)
  assert.match(res.body, 'database password is hunter2')
  assert.match(res.body, 'http.test.ts')
})

test('renders an HttpError with its status, body and headers', async () => {
  const kernel = createTestKernel()
  kernel.router.get('slow', () => {
    throw new HttpError(
      429,
      { error: 'too_many_attempts', retry_after: 60 },
      { headers: { 'retry-after': '60' } },
    )
  })
  const res = await kernel.inject('/slow')
  assert.is(res.status, 429)
  assert.is(res.headers['retry-after'], '60')
  assert.equal(res.json(), { error: 'too_many_attempts', retry_after: 60 })
})

test('a browser ranking text/html above JSON gets the page; a tie or JSON alone gets JSON', async () => {
  const kernel = createTestKernel()
  kernel.router.get('staff', () => {
    throw new HttpError(403, { error: 'forbidden', message: 'Your account may not open this.' })
  })
  const pages = [
    'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8',
    'application/json;q=0.5, text/html',
    'text/html, application/json;q=0',
  ]
  for (const accept of pages) {
    const page = await kernel.inject({ url: '/staff', headers: { accept } })
    assert.is(page.status, 403, accept)
    assert.match(String(page.headers['content-type']), 'text/html', accept)
    assert.match(page.body, 'Your account may not open this.')
    assert.is(
      (await kernel.inject({ url: '/nowhere', headers: { accept } })).headers['content-type'],
      page.headers['content-type'],
    )
  }
  for (const accept of [
    'application/json',
    'text/html, application/json',
    'text/html;q=0.5, application/json;q=0.9',
  ]) {
    const res = await kernel.inject({ url: '/staff', headers: { accept } })
    assert.is(res.status, 403, accept)
    assert.equal(
      res.json(),
      { error: 'forbidden', message: 'Your account may not open this.' },
      accept,
    )
  }
})

test('answers 503 with retry_after while the maintenance flag is down', async () => {
  const kernel = app()
  enterMaintenance(kernel.root, 120)
  const res = await kernel.inject({ url: '/things', headers: JSON_CLIENT })
  assert.is(res.status, 503)
  assert.is(res.headers['retry-after'], '120')
  assert.equal(res.json(), { error: 'maintenance', retry_after: 120 })
  const page = await kernel.inject({ url: '/things', headers: BROWSER })
  assert.is(page.status, 503)
  assert.match(page.body, 'maintenance')
  leaveMaintenance(kernel.root)
  const fresh = app()
  assert.is((await fresh.inject('/things')).status, 200)
})

test('defaults the maintenance retry to 300 seconds when the flag holds no number', async () => {
  const kernel = app()
  const { writeFileSync } = await import('node:fs')
  writeFileSync(enterMaintenance(kernel.root), 'planned upgrade')
  const res = await kernel.inject({ url: '/things', headers: JSON_CLIENT })
  assert.equal(res.json(), { error: 'maintenance', retry_after: 300 })
})

test('answers a view without a view engine with a 500 that names the problem in development', async () => {
  const { view } = await import('fw')
  const kernel = createTestKernel({ env: { FW_DEBUG: '1' } })
  kernel.router.get('page', () => view('home'))
  const res = await kernel.inject({ url: '/page', headers: JSON_CLIENT })
  assert.is(res.status, 500)
  assert.match(
    res.json<{ message: string }>().message,
    "returned the view 'home', but no view engine is registered",
  )
})

function get(
  url: string,
  path: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(`${url}${path}`, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    })
      .on('error', reject)
      .end()
  })
}

test('writing a reply leaves its own headers as the handler and taps set them', async () => {
  const kernel = app()
  kernel.router.get('tagged', () => json({ ok: true }).header('x-tag', 'a'))
  const res = await kernel.inject('/tagged')
  assert.is(res.headers['content-type'], 'application/json; charset=utf-8')
  assert.is(res.headers['content-length'], '11')
  assert.is(res.headers['x-tag'], 'a')
  // What the server added on the wire (type, length, security headers) is not written back.
  assert.equal(res.reply.headers, { 'x-tag': 'a' })
})

test('serves the same replies over a real socket', async () => {
  const kernel = app()
  kernel.router.get('plain', () => text('hi'))
  const { url } = await kernel.listen(0, '127.0.0.1')
  try {
    const a = await get(url, '/things')
    assert.is(a.status, 200)
    assert.is(a.body, '[{"id":1}]')
    assert.is(a.headers['content-type'], 'application/json; charset=utf-8')
    const b = await get(url, '/plain?x=1')
    assert.is(b.body, 'hi')
  } finally {
    await kernel.close()
  }
})

test('answers a reply whose header Node refuses (a line break in a value) with a bare 500, injected too', async () => {
  const kernel = app()
  kernel.router.get('split', () => json({ ok: true }).header('x-note', 'a\r\nset-cookie: x=1'))
  const { url } = await kernel.listen(0, '127.0.0.1')
  try {
    const res = await get(url, '/split')
    assert.is(res.status, 500)
    assert.is(res.body, '{"error":"unavailable"}')
    assert.is(res.headers['set-cookie'], undefined)
    assert.is(res.headers['x-content-type-options'], 'nosniff')
    assert.is(kernel.logger.entries.at(-1)!.message, 'writing a response failed')
    // In memory as on the wire.
    const injected = await kernel.inject('/split')
    assert.equal([injected.status, injected.body], [500, '{"error":"unavailable"}'])
    assert.is(injected.headers['x-note'], undefined)
    assert.is(injected.headers['x-content-type-options'], 'nosniff')
  } finally {
    await kernel.close()
  }
})

test.run()
