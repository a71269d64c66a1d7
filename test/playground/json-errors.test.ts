import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { bootApp, playground } from '../fixtures/booted-app.js'

// The playground's API (`/api/v1`, `/api/v2`) and the login endpoints answer every error in
// JSON unless the client ranks `text/html` first; an XML client of the API gets XML; each such
// reply says `Vary: Accept`, so a shared cache keeps the JSON and the page apart.
const test = suite<{ db: TestDatabase; kernel: Kernel }>('playground JSON errors')
const API = { apikey: 'demo-api-key' }
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

bootApp(test, playground())

function varies(res: { headers: Record<string, unknown> }): boolean {
  return String(res.headers.vary ?? '')
    .split(',')
    .some((t) => t.trim().toLowerCase() === 'accept')
}

test('a missing product answers a JSON 404 to curl (no Accept) and fetch (*/*)', async ({
  kernel,
}) => {
  for (const accept of [undefined, '*/*']) {
    const headers = accept === undefined ? API : { ...API, accept }
    const res = await kernel.inject({ url: '/api/v1/products/987654321', headers })
    assert.is(res.status, 404, accept)
    assert.match(String(res.headers['content-type']), 'application/json', accept)
    assert.is(res.json<{ error: string }>().error, 'not_found', accept)
    assert.ok(varies(res), `Vary: ${String(res.headers.vary)}`)
  }
})

test('an unknown path or a wrong method under the API answers JSON', async ({ kernel }) => {
  const cases: [string, string, number][] = [
    ['GET', '/api/v1/no-such-thing', 404],
    ['GET', '/api/v2/products/1', 404],
    ['PUT', '/api/v1/products/1', 405],
    ['POST', '/api/v2/products', 405],
  ]
  for (const [method, url, status] of cases) {
    const res = await kernel.inject({ method, url, headers: API })
    assert.is(res.status, status, `${method} ${url}`)
    assert.match(String(res.headers['content-type']), 'application/json', `${method} ${url}`)
    assert.ok(varies(res), `${method} ${url}`)
  }
})

test('a client asking for a page still gets the HTML 404, with Vary: Accept', async ({
  kernel,
}) => {
  for (const accept of ['text/html', 'text/html, application/json;q=0.5']) {
    const res = await kernel.inject({
      url: '/api/v1/products/987654321',
      headers: { ...API, accept },
    })
    assert.is(res.status, 404, accept)
    assert.match(String(res.headers['content-type']), 'text/html', accept)
    assert.ok(varies(res), accept)
  }
})

test('an XML client of the API gets the 404 in XML', async ({ kernel }) => {
  const res = await kernel.inject({
    url: '/api/v1/products/987654321',
    headers: { ...API, accept: 'application/xml' },
  })
  assert.is(res.status, 404)
  assert.match(String(res.headers['content-type']), 'application/xml')
  assert.match(res.body, '<error>not_found</error>')
  assert.ok(varies(res))
})

test('the login endpoints answer a wrong method with a JSON 405 unless a page is asked for', async ({
  kernel,
}) => {
  for (const url of ['/account/login', '/account/login2fa']) {
    for (const accept of [undefined, '*/*']) {
      const res = await kernel.inject({
        method: 'PUT',
        url,
        headers: accept === undefined ? {} : { accept },
      })
      assert.is(res.status, 405, url)
      assert.is(res.headers.allow, 'POST', url)
      const body = res.json<{ error: string; allowed: string[] }>()
      assert.equal([body.error, body.allowed], ['method_not_allowed', ['POST']], url)
      assert.ok(varies(res), url)
    }
    const page = await kernel.inject({ method: 'PUT', url, headers: { accept: BROWSER } })
    assert.is(page.status, 405)
    assert.match(String(page.headers['content-type']), 'text/html')
  }
})

test('the site outside the API keeps its HTML 404 for a client without a preference', async ({
  kernel,
}) => {
  const res = await kernel.inject({ url: '/no-such-page', headers: { accept: '*/*' } })
  assert.is(res.status, 404)
  assert.match(String(res.headers['content-type']), 'text/html')
  assert.ok(varies(res))
})

test.run()
