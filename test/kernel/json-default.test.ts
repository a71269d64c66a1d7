import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, json, silentLogger, type Kernel } from 'fw'

// A route or group that answers JSON by default: the kernel's own replies (404 of a bound model,
// 404 under the group's prefix, 405, 500) are JSON unless the client ranks `text/html` first.
const test = suite('json by default')

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

function app(): Kernel {
  const kernel = createKernel({ logger: silentLogger, config: { development: false } })
  kernel.binding('Thing', async (value) => (value === '1' ? { id: 1 } : undefined))
  kernel.router.group({ prefix: 'api', json: true }, (r) => {
    r.get('things/{id}', (ctx) => json(ctx.models.id)).bind('id', 'Thing')
    r.get('boom', () => {
      throw new Error('boom')
    })
  })
  kernel.router.post('hook', () => json({ ok: true })).json()
  kernel.router.get('page/{id}', (ctx) => json(ctx.models.id)).bind('id', 'Thing')
  return kernel
}

function vary(headers: Record<string, unknown>): string[] {
  return String(headers.vary ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
}

test('a group with json: true answers its errors in JSON to a client without a preference', async () => {
  const kernel = app()
  for (const accept of [undefined, '*/*', 'text/plain', 'application/xml']) {
    const headers: Record<string, string> = accept === undefined ? {} : { accept }
    const cases: [string, string, number, Record<string, unknown>][] = [
      ['GET', '/api/things/2', 404, { error: 'not_found' }],
      ['GET', '/api/nothing/here', 404, { error: 'not_found' }],
      ['GET', '/api', 404, { error: 'not_found' }],
      ['PUT', '/api/things/1', 405, { error: 'method_not_allowed', allowed: ['GET', 'HEAD'] }],
      ['GET', '/api/boom', 500, { error: 'unavailable' }],
      ['GET', '/hook', 405, { error: 'method_not_allowed', allowed: ['POST'] }],
    ]
    for (const [method, url, status, body] of cases) {
      const res = await kernel.inject({ method, url, headers })
      const what = `${method} ${url} ${accept ?? '(no accept)'}`
      assert.is(res.status, status, what)
      assert.match(String(res.headers['content-type']), 'application/json', what)
      assert.equal(res.json(), body, what)
      assert.ok(vary(res.headers).includes('accept'), what)
    }
  }
  await kernel.close()
})

test('a client that ranks text/html first still gets the page', async () => {
  const kernel = app()
  for (const accept of ['text/html', BROWSER, 'application/json;q=0.5, text/html']) {
    for (const url of ['/api/things/2', '/api/nothing']) {
      const res = await kernel.inject({ url, headers: { accept } })
      assert.is(res.status, 404, `${url} ${accept}`)
      assert.match(String(res.headers['content-type']), 'text/html', `${url} ${accept}`)
      assert.ok(vary(res.headers).includes('accept'), `${url} ${accept}`)
    }
  }
  // A tie is JSON, as for any route.
  const tie = await kernel.inject({
    url: '/api/things/2',
    headers: { accept: 'text/html, application/json' },
  })
  assert.equal(tie.json(), { error: 'not_found' })
  await kernel.close()
})

test('routes outside the group keep the page for a client without a preference', async () => {
  const kernel = app()
  for (const url of ['/page/2', '/apis', '/nothing']) {
    const res = await kernel.inject({ url, headers: { accept: '*/*' } })
    assert.is(res.status, 404, url)
    assert.match(String(res.headers['content-type']), 'text/html', url)
    assert.ok(vary(res.headers).includes('accept'), url)
  }
  const json = await kernel.inject({ url: '/page/2', headers: { accept: 'application/json' } })
  assert.equal(json.json(), { error: 'not_found' })
  await kernel.close()
})

test('a route answers JSON by default once middleware says so (ctx.jsonByDefault)', async () => {
  const kernel = createKernel({ logger: silentLogger, config: { development: false } })
  kernel.middleware('jsonish', (ctx, next) => {
    ctx.jsonByDefault = true
    return next()
  })
  kernel.router
    .get('late', () => {
      throw new Error('late')
    })
    .middleware('jsonish')
  const res = await kernel.inject('/late')
  assert.is(res.status, 500)
  assert.equal(res.json(), { error: 'unavailable' })
  await kernel.close()
})

test.run()
