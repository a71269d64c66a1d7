// The playground's administration area as playground/README.md promises it (`admin.prefix` set
// through FW_CONFIG, the playground's defaults for the rest): through `kernel.inject()` with the
// real auth plugin on the test database (PGlite, or PostgreSQL under DATABASE_URL), then the served
// playground over a real socket, then `fw route:list`.
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { runCli } from 'fw/testing'
import { servePlayground } from '../e2e/serve-process.js'
import { bootApp, playground, tokenOf } from '../fixtures/booted-app.js'

const ADMIN = '{"admin":{"prefix":"admin"},"features":[]}'
const KEY = 'base64:playground-admin-test-key'
const repo = fileURLToPath(new URL('../../', import.meta.url))

const test = suite<{ db: TestDatabase; kernel: Kernel; tokens: Record<string, string> }>(
  'playground admin area',
)

bootApp(test, playground({ FW_APP_KEY: KEY, FW_CONFIG: ADMIN }))

test.before(async (context) => {
  context.tokens = {}
  for (const username of ['admin', 'editor', 'user'])
    context.tokens[username] = await tokenOf(context.kernel, username)
})

function as(
  { kernel, tokens }: { kernel: Kernel; tokens: Record<string, string> },
  who: string | undefined,
  url: string,
  accept = 'text/html',
) {
  const auth = who === undefined ? {} : { authorization: `Bearer ${tokens[who]}` }
  return kernel.inject({ url, headers: { accept, ...auth } })
}

test('a guest is sent to sign in, with the requested address and its query', async (context) => {
  for (const url of ['/admin', '/admin/', '/admin/users', '/admin/users?sort=email&page=2']) {
    const res = await as(context, undefined, url)
    assert.is(res.status, 302, url)
    const location = new URL(String(res.headers.location), 'http://site.test')
    assert.is(location.pathname, '/login')
    assert.is(location.searchParams.get('return'), url)
  }
  const json = await as(context, undefined, '/admin', 'application/json')
  assert.is(json.status, 401)
  assert.is(json.json<{ error: string }>().error, 'unauthenticated')
})

test('the sign-in page refuses an off-site return address', async ({ kernel }) => {
  for (const evil of ['//evil.example/admin', 'https://evil.example/admin', '/\\evil.example']) {
    const res = await kernel.inject({
      url: `/login?return=${encodeURIComponent(evil)}`,
      headers: { accept: 'text/html' },
    })
    assert.is(res.status, 200)
    assert.not.match(res.body, 'evil.example', evil)
  }
})

test('user (1) is sent to the site root; JSON clients get 403', async (context) => {
  const res = await as(context, 'user', '/admin')
  assert.is(res.status, 302)
  assert.is(res.headers.location, '/')
  const json = await as(context, 'user', '/admin/users', 'application/json')
  assert.is(json.status, 403)
  assert.is(json.json<{ error: string }>().error, 'forbidden')
})

test('editor (50) reaches the dashboard in the admin theme, and gets 403 on users', async (context) => {
  for (const url of ['/admin', '/admin/', '/admin/dashboard']) {
    const res = await as(context, 'editor', url)
    assert.is(res.status, 200, url)
    assert.match(res.body, /<body class="admin" data-theme="admin">/)
    assert.match(res.body, /<strong id="admin-user">editor<\/strong>/)
    assert.match(res.body, /href="\/admin\/users"/)
  }
  const users = await as(context, 'editor', '/admin/users')
  assert.is(users.status, 403)
})

test("editor's browser gets the 403 as an HTML page; a JSON client gets JSON", async (context) => {
  // What browsers send, one of them listing JSON below HTML: a page either way.
  for (const accept of [
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8',
  ]) {
    const page = await as(context, 'editor', '/admin/users', accept)
    assert.is(page.status, 403, accept)
    assert.is(page.headers['content-type'], 'text/html; charset=utf-8', accept)
    assert.match(page.body, /^<!doctype html>/)
    assert.match(page.body, '<title>403 Forbidden</title>')
    assert.match(page.body, 'Your account may not open this.')
  }
  const json = await as(context, 'editor', '/admin/users', 'application/json')
  assert.is(json.status, 403)
  assert.match(String(json.headers['content-type']), 'application/json')
  assert.equal(json.json(), { error: 'forbidden', message: 'Your account may not open this.' })
})

test('a browser listing JSON below HTML is still sent to sign in, or to the site root', async (context) => {
  const accept = 'text/html,application/json;q=0.9'
  const guest = await as(context, undefined, '/admin/users', accept)
  assert.is(guest.status, 302)
  assert.is(guest.headers.location, '/login?return=/admin/users')
  const user = await as(context, 'user', '/admin', accept)
  assert.is(user.status, 302)
  assert.is(user.headers.location, '/')
})

test('admin (100) reaches users: a table of usernames, emails and usertypes', async (context) => {
  const res = await as(context, 'admin', '/admin/users')
  assert.is(res.status, 200)
  assert.match(res.body, /<table id="users">/)
  assert.match(res.body, /<td>admin<\/td><td>[^<]*@[^<]*<\/td><td>100<\/td>/)
  assert.match(res.body, /<td>editor<\/td><td>[^<]*<\/td><td>50<\/td>/)
  assert.match(res.body, /data-theme="admin"/)
})

test("the site's products page answers on both paths; routes inside are those outside", async (context) => {
  const site = await as(context, undefined, '/products')
  assert.is(site.status, 200)
  assert.not.match(site.body, 'data-theme="admin"')
  const area = await as(context, 'editor', '/admin/products')
  assert.is(area.status, 200)
  assert.match(area.body, /<table id="products"/)
  assert.match(area.body, 'data-theme="admin"')
  const ping = await as(context, 'editor', '/admin/_demo/ping', 'application/json')
  assert.equal(ping.json(), { hello: 'world', n: 1 })
  assert.equal((await as(context, undefined, '/_demo/ping', 'application/json')).json(), {
    hello: 'world',
    n: 1,
  })
})

test('health and account pages are never inside the area', async (context) => {
  for (const url of ['/admin/health/check', '/admin/health/status', '/admin/login'])
    assert.is((await as(context, 'admin', url, 'application/json')).status, 404, url)
  assert.is((await as(context, 'admin', '/health/status', 'application/json')).status, 200)
})

test('the served playground: the area over a real socket', async ({ db }) => {
  const app = await servePlayground({
    DATABASE_URL: db.url,
    FW_APP_KEY: KEY,
    FW_CONFIG: ADMIN,
    NODE_ENV: 'production',
  })
  try {
    const guest = await fetch(`${app.url}/admin/users?x=1`, { redirect: 'manual' })
    assert.is(guest.status, 302)
    assert.is(guest.headers.get('location'), '/login?return=/admin/users%3Fx=1')
    const login = await fetch(`${app.url}/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin-pass' }),
    })
    const { access_token: token } = (await login.json()) as { access_token: string }
    const page = await fetch(`${app.url}/admin/`, { headers: { authorization: `Bearer ${token}` } })
    assert.is(page.status, 200)
    assert.match(await page.text(), /<strong id="admin-user">admin<\/strong>/)
    const health = await fetch(`${app.url}/admin/health/check`)
    assert.is(health.status, 404)
  } finally {
    await app.stop()
  }
})

test('fw route:list shows the area routes', async () => {
  const { code, stdout } = await runCli(['route:list', '--json'], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory', FW_CONFIG: ADMIN },
  })
  assert.is(code, 0)
  const rows = (JSON.parse(stdout) as { path: string; handler: string }[])
    .filter((r) => r.path === 'admin' || r.path.startsWith('admin/'))
    .map((r) => `${r.path} ${r.handler}`)
  assert.equal(rows, [
    'admin DashboardController@index',
    'admin/dashboard/index DashboardController@index',
    'admin/images/edit ImagesController@edit',
    'admin/images/upload ImagesController@upload',
    'admin/imports/index ImportsController@index',
    'admin/imports/progress ImportsController@progress',
    'admin/imports/show ImportsController@show',
    'admin/imports/upload ImportsController@upload',
    'admin/users/index UsersController@index',
  ])
  // Without the prefix, no area rows.
  const off = await runCli(['route:list', '--json'], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.not.ok((JSON.parse(off.stdout) as { path: string }[]).some((r) => r.path === 'admin'))
})

test.run()
