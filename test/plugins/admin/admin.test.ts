// The admin plugin through `kernel.inject()` (plugins/admin/README.md), on an app whose root is
// ./fixture: the area's controllers and views in fixture/Admin/, the site's views in
// fixture/views/. Who is signed in comes from an `authenticate` tap reading a test header; the
// sign-in redirects with the auth plugin are tested on the playground
// (test/playground/admin.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createKernel,
  definePlugin,
  silentLogger,
  view,
  type Kernel,
  type RequestContext,
} from 'fw'
import admin, { requireUsertype } from 'fw/plugins/admin'
import health from 'fw/plugins/health'
import views from 'fw/plugins/views'

const root = fileURLToPath(new URL('./fixture/', import.meta.url))

/** The site's classic `users`: answers outside the area, and inside only where the area has none. */
class SiteUsersController {
  index(_args: string[], ctx: RequestContext) {
    return { from: 'site users', path: ctx.path }
  }
}
/** A site controller with no area copy: answers on the bare and the prefixed path (rule 5). */
class CatalogController {
  index(_args: string[], ctx: RequestContext) {
    return { from: 'site catalog', path: ctx.path, routingPath: ctx.routingPath }
  }

  page() {
    return view('page', { title: 'catalog' })
  }
}

function app(adminConfig: Record<string, unknown> | undefined): Kernel {
  const kernel = createKernel({
    root,
    logger: silentLogger,
    config: {
      development: false,
      ...(adminConfig === undefined ? {} : { admin: adminConfig }),
    },
  })
  kernel.register(views).register(admin).register(health, { diskSpace: false, cache: false })
  kernel.hooks.authenticate.tap('test-user', (ctx) => {
    const usertype = ctx.header('x-test-usertype')
    return usertype === undefined
      ? undefined
      : { id: 7, username: `u${usertype}`, usertype: Number(usertype), via: 'test' }
  })
  kernel.router.get('where', (ctx) => ({ path: ctx.path, routingPath: ctx.routingPath }))
  kernel.router.get('', () => ({ home: true }))
  kernel.router.get('staff-only', () => ({ staff: true })).middleware('staff')
  kernel.middleware('staff', requireUsertype(90))
  kernel.router.classic('users', SiteUsersController)
  kernel.router.classic('catalog', CatalogController)
  return kernel
}

const test = suite<{ kernel: Kernel }>('admin area')
test.before(async (context) => {
  context.kernel = app({
    prefix: 'admin',
    min_usertype: 50,
    default_controller: 'home',
    theme: 'staff',
  })
  await context.kernel.boot()
})
test.after(async ({ kernel }) => kernel.close())

/** A GET as a user of `usertype` (a guest without), HTML unless `json`. */
function get(kernel: Kernel, url: string, usertype?: number, json = false) {
  return kernel.inject({
    url,
    headers: {
      accept: json ? 'application/json' : 'text/html',
      ...(usertype === undefined ? {} : { 'x-test-usertype': String(usertype) }),
    },
  })
}

test('the prefix matches a whole first segment only, case and all', async ({ kernel }) => {
  for (const url of ['/admin/where', '/admin/where?x=1']) {
    const res = await get(kernel, url, 50, true)
    assert.is(res.status, 200, url)
    assert.equal(res.json(), { path: '/admin/where', routingPath: '/where' })
  }
  for (const url of ['/administration', '/Admin', '/admin.json', '/Admin/where', '/xadmin/where']) {
    const res = await get(kernel, url, 100, true)
    assert.is(res.status, 404, url)
  }
  // Outside: the route as declared, ctx.path as requested.
  assert.equal((await get(kernel, '/where', undefined, true)).json(), {
    path: '/where',
    routingPath: '/where',
  })
})

test('ctx.path and the raw URL keep the prefix; only the routing path loses it', async ({
  kernel,
}) => {
  const res = await get(kernel, '/admin/users', 50, true)
  assert.equal(res.json(), { from: 'area users', path: '/admin/users', routingPath: '/users' })
  const received = res.events.find((e) => e.type === 'request.received')
  assert.is((received?.data as { path: string }).path, '/admin/users')
})

test('the bare prefix opens the default controller; without one it is 404', async ({ kernel }) => {
  for (const url of ['/admin', '/admin/'])
    assert.equal((await get(kernel, url, 50, true)).json(), { from: 'area home' })
  const bare = app({ prefix: 'admin', min_usertype: 50 })
  await bare.boot()
  for (const url of ['/admin', '/admin/']) assert.is((await get(bare, url, 50, true)).status, 404)
  assert.is((await get(bare, '/admin/where', 50, true)).status, 200)
  await bare.close()
})

test('the floor: guest 401, below 403 for JSON clients; at and above reach the area', async ({
  kernel,
}) => {
  const guest = await get(kernel, '/admin/where', undefined, true)
  assert.is(guest.status, 401)
  assert.is(guest.json<{ error: string }>().error, 'unauthenticated')
  const below = await get(kernel, '/admin/where', 49, true)
  assert.is(below.status, 403)
  assert.is(below.json<{ error: string }>().error, 'forbidden')
  for (const usertype of [50, 51, 100])
    assert.is(
      (await get(kernel, '/admin/where', usertype, true)).status,
      200,
      `usertype ${usertype}`,
    )
  // The floor is not the site's: outside the area a guest reaches the same route.
  assert.is((await get(kernel, '/where', undefined, true)).status, 200)
})

test('the floor for browsers: below goes to the site root', async ({ kernel }) => {
  const below = await get(kernel, '/admin/where', 10)
  assert.is(below.status, 302)
  assert.is(below.headers.location, '/')
  // No auth plugin here, so no sign-in page to send a guest to: 401 (the playground redirects).
  assert.is((await get(kernel, '/admin/where')).status, 401)
})

test('area controllers first, then the site: a site controller answers bare and prefixed', async ({
  kernel,
}) => {
  assert.equal((await get(kernel, '/users', undefined, true)).json(), {
    from: 'site users',
    path: '/users',
  })
  assert.is(
    (await get(kernel, '/admin/users', 50, true)).json<{ from: string }>().from,
    'area users',
  )
  assert.equal((await get(kernel, '/catalog', undefined, true)).json(), {
    from: 'site catalog',
    path: '/catalog',
    routingPath: '/catalog',
  })
  assert.equal((await get(kernel, '/admin/catalog', 50, true)).json(), {
    from: 'site catalog',
    path: '/admin/catalog',
    routingPath: '/catalog',
  })
  // `?r=` names a controller: the area's inside, the site's outside.
  assert.is(
    (await get(kernel, '/admin/?r=users', 50, true)).json<{ from: string }>().from,
    'area users',
  )
  assert.is((await get(kernel, '/?r=users', 50, true)).json<{ from: string }>().from, 'site users')
})

test('the area directory is never searched outside the area', async ({ kernel }) => {
  assert.is((await get(kernel, '/admin/reports', 50)).status, 200)
  assert.is((await get(kernel, '/reports', 100)).status, 404)
  assert.is((await get(kernel, '/home', 100, true)).status, 404)
  // `?r=reports` outside: no site controller of that name, so the home route answers.
  assert.equal((await get(kernel, '/?r=reports', 100, true)).json(), { home: true })
})

test('views: the area first, the site as fallback, the area theme inside only', async ({
  kernel,
}) => {
  // reports renders `page`: the area's copy.
  assert.match((await get(kernel, '/admin/reports', 50)).body, /^area page reports\|/)
  // catalog/page renders `page` too: the area's inside, the site's outside.
  assert.match((await get(kernel, '/admin/catalog/page', 50)).body, /^area page catalog\|/)
  assert.match((await get(kernel, '/catalog/page')).body, /^site page catalog\|/)
  // A view only the site has, inside the area in the area's theme.
  assert.is((await get(kernel, '/admin/reports/site', 50)).body, 'staff theme')
})

test('link helpers, with an area', async ({ kernel }) => {
  const api = kernel.plugin('admin')
  assert.is(api.adminUrl(), '/admin/')
  assert.is(api.adminUrl('users'), '/admin/users')
  assert.is(api.adminUrl('/users/edit/5'), '/admin/users/edit/5')
  assert.is(api.url, '/admin')
  assert.is(api.siteUrl, '/')
  // In views, inside and outside the area alike.
  const expected = '|/admin/|/admin/users|/admin/users/edit/5|/admin|/'
  assert.is((await get(kernel, '/admin/reports', 50)).body, `area page reports${expected}`)
  assert.is((await get(kernel, '/catalog/page')).body, `site page catalog${expected}`)
})

test('link helpers without an area: all the site base', async () => {
  const kernel = app(undefined)
  await kernel.boot()
  const api = kernel.plugin('admin')
  assert.is(api.active, false)
  assert.equal(
    [api.adminUrl(), api.adminUrl('users'), api.url, api.siteUrl],
    ['/', '/users', '/', '/'],
  )
  assert.is(
    (await get(kernel, '/catalog/page')).body,
    'site page catalog|/|/users|/users/edit/5|/|/',
  )
  await kernel.close()
})

test("a screen's own check on top of the floor: helper and route middleware", async ({
  kernel,
}) => {
  const editor = await get(kernel, '/admin/users/secret', 50, true)
  assert.is(editor.status, 403)
  assert.is(editor.json<{ error: string }>().error, 'forbidden')
  assert.equal((await get(kernel, '/admin/users/secret', 90, true)).json(), {
    from: 'area users secret',
  })
  // As route middleware, inside and outside the area.
  assert.is((await get(kernel, '/admin/staff-only', 50, true)).status, 403)
  assert.is((await get(kernel, '/staff-only', 50, true)).status, 403)
  assert.is((await get(kernel, '/staff-only', undefined, true)).status, 401)
  assert.is((await get(kernel, '/staff-only', 90, true)).status, 200)
})

test('never inside the area: health, .well-known, login, account, _fw, devpanel', async ({
  kernel,
}) => {
  assert.is((await get(kernel, '/health/check', undefined, true)).status, 200)
  for (const url of [
    '/admin/health/check',
    '/admin/health/status',
    '/admin/.well-known/health',
    '/admin/login',
    '/admin/account/login',
    '/admin/_fw/toolbar.js',
    '/admin/devpanel',
    // The router reads a run of slashes as one: so does the area's exclusion list.
    '/admin//health/check',
    '/admin///account/login',
    '/admin//_fw/toolbar.js',
  ]) {
    const res = await get(kernel, url, 100, true)
    assert.is(res.status, 404, url)
  }
})

test('a plugin keeps the paths it claims out of the area; unclaimed, the area takes them', async () => {
  const status = (claim: boolean) =>
    definePlugin({
      name: 'status-page',
      setup(kernel) {
        if (claim) kernel.router.claim('status-page', '/status*')
        kernel.router.get('status', () => ({ status: 'up' }))
      },
    })
  for (const claim of [true, false]) {
    const kernel = createKernel({
      root,
      logger: silentLogger,
      config: { development: false, admin: { prefix: 'admin' } },
    })
    kernel.register(admin).register(status(claim))
    await kernel.boot()
    assert.is((await get(kernel, '/status', undefined, true)).status, 200)
    for (const url of ['/admin/status', '/admin/status/x', '/admin//statuses'])
      assert.is(
        (await get(kernel, url, 100, true)).status,
        claim ? 404 : url === '/admin/status' ? 200 : 404,
        url,
      )
    if (claim)
      assert.ok(
        kernel.router.claims().some((c) => c.owner === 'status-page' && c.path === '/status*'),
      )
    await kernel.close()
  }
})

test('inside the area, one identity lookup per request, the floor and the screen check together', async ({
  kernel,
}) => {
  let lookups = 0
  kernel.hooks.authenticate.tap({ name: 'count', stage: -1000 }, () => {
    lookups++
    return undefined
  })
  assert.is((await get(kernel, '/admin/users/secret', 90, true)).status, 200)
  assert.is(lookups, 1)
  lookups = 0
  assert.is((await get(kernel, '/where', 90, true)).status, 200)
  assert.is(lookups, 0, 'outside the area, nothing asks who it is')
})

test('outside the area the plugin adds no route tap: routing keeps its direct path', ({
  kernel,
}) => {
  assert.not.ok(kernel.hooks.route.taps.some((t) => t.name === 'admin'))
  assert.ok(kernel.hooks.request.taps.some((t) => t.name === 'admin'))
})

test('inactive without a prefix: no tap on any hook', async () => {
  const kernel = app({ prefix: '', min_usertype: 50 })
  await kernel.boot()
  assert.is(kernel.plugin('admin').active, false)
  for (const hook of [kernel.hooks.request, kernel.hooks.route])
    assert.not.ok(hook.taps.some((t) => t.name === 'admin'))
  assert.is((await get(kernel, '/admin/where', undefined, true)).status, 404)
  await kernel.close()
})

test('a prefix that is not one segment, or a bad area folder, fails at boot naming the key', async () => {
  for (const [config, key] of [
    [{ prefix: 'admin/x' }, 'admin.prefix'],
    [{ prefix: 'a b' }, 'admin.prefix'],
    [{ prefix: '..' }, 'admin.prefix'],
    [{ prefix: 'admin', area: '../src' }, 'admin.area'],
  ] as const) {
    const kernel = app(config)
    try {
      await kernel.boot()
      assert.unreachable(JSON.stringify(config))
    } catch (error) {
      assert.match(String((error as Error).message), key)
    }
  }
  // Slashes around one segment are forgiven.
  const kernel = app({ prefix: '/admin/', min_usertype: 50 })
  await kernel.boot()
  assert.is((await get(kernel, '/admin/where', 50, true)).status, 200)
  await kernel.close()
})

test('an area controller module that exports no class, or cannot load, fails boot naming the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-admin-'))
  try {
    for (const [file, source, reason] of [
      ['reports.mjs', 'export const answer = 42\n', 'exports no class'],
      ['broken.mjs', 'export default class {\n', 'could not be imported'],
    ] as const) {
      writeFileSync(join(dir, file), source)
      const kernel = createKernel({
        root,
        logger: silentLogger,
        config: { admin: { prefix: 'admin' } },
      })
      kernel.register(admin, { controllers: dir })
      try {
        await kernel.boot()
        assert.unreachable(file)
      } catch (error) {
        assert.is((error as { code?: string }).code, 'FW_ERR_ADMIN_CONTROLLER_INVALID', file)
        assert.match(String((error as Error).message), join(dir, file))
        assert.match(String((error as Error).message), reason)
      }
      rmSync(join(dir, file))
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
