// The administration area with `admin.default_controller: ''`: the bare prefix opens nothing
// (404, not the site's home page in the area's theme); and inside the area a classic controller
// reached by its path reports the request as it arrived, prefix included.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { bootApp, playground, tokenOf } from '../fixtures/booted-app.js'

const CONFIG = '{"admin":{"prefix":"admin","default_controller":""},"features":[]}'
const KEY = 'base64:playground-admin-bare-test-key'

const test = suite<{ db: TestDatabase; kernel: Kernel; token: string }>(
  'playground admin area: bare prefix and legacy echo',
)

bootApp(test, playground({ FW_APP_KEY: KEY, FW_CONFIG: CONFIG }))

test.before(async (context) => {
  context.token = await tokenOf(context.kernel, 'admin')
})

function get({ kernel, token }: { kernel: Kernel; token: string }, url: string, accept: string) {
  return kernel.inject({ url, headers: { accept, authorization: `Bearer ${token}` } })
}

test("with default_controller '' the bare prefix answers 404", async (context) => {
  for (const url of ['/admin', '/admin/']) {
    const page = await get(context, url, 'text/html')
    assert.is(page.status, 404, url)
    assert.not.match(page.body, 'data-theme="admin"', url)
    assert.is((await get(context, url, 'application/json')).status, 404, url)
  }
  // The area's controllers still answer by name, and the site's home page stays at `/`.
  assert.is((await get(context, '/admin/dashboard', 'text/html')).status, 200)
  assert.is((await get(context, '/', 'text/html')).status, 200)
})

test('inside the area, originalRequestNoChange keeps the prefix', async (context) => {
  const res = await get(context, '/admin/demo/echo/x', 'application/json')
  assert.is(res.status, 200)
  const echo = res.json<Record<string, unknown>>()
  assert.is(echo.controller, 'demo')
  assert.is(echo.action, 'echo')
  assert.is(echo.option, 'x')
  assert.is(echo.originalRequest, 'demo/echo/x')
  assert.is(echo.originalRequestNoChange, 'admin/demo/echo/x')
  // `?r=` names the request itself: it is kept as it arrived.
  const r = (await get(context, '/admin?r=demo/echo/y', 'application/json')).json<
    Record<string, unknown>
  >()
  assert.is(r.originalRequestNoChange, 'demo/echo/y')
  // Outside the area nothing changes.
  const site = (await get(context, '/demo/echo/x', 'application/json')).json<
    Record<string, unknown>
  >()
  assert.is(site.originalRequestNoChange, 'demo/echo/x')
})

test.run()
