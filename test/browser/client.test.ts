// The toolbar in a real Chromium, against the real playground: the Errors and Client tabs,
// hiding, both deliveries (the inline script on server-rendered pages, the ES module in a
// single-page application), living on a page it does not own (scoped styles, a strict CSP,
// the keyboard, light and dark), its assets, and how long it takes to boot on a 50 KB island.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Browser, Page } from 'playwright-core'
import { definePlugin, html, type Kernel, type RequestContext } from 'fw'
import debug, { toolbarAssets } from 'fw/plugins/debug'
import { logsProjection } from 'fw/plugins/logging'
import { createTestKernel } from 'fw/testing'
import {
  launchBrowser,
  screenshot,
  startPlayground,
  withPage as pageOf,
  type Playground,
} from './harness.js'
import { openTab, panel, tab, tabIds, waitForRows } from './toolbar.js'

const test = suite('browser: errors, client, hiding, deliveries, page, assets, boot')

let browser: Browser
let pg: Playground
let side: { kernel: Kernel; url: string }

// ---------------------------------------------------------------------------------------------
// Pages

/** A single-page application shell: no injection, the module imported from the real server. */
const APP = `
import { record, reportError } from '/_fw/debugbar.mjs'
window.spa = {
  record,
  reportError,
  async call(path, init) {
    const t0 = performance.now()
    const res = await fetch(path, init)
    const body = await res.json()
    record(init?.method ?? 'GET', path, res.status, body._debug, { ms: performance.now() - t0, body: init?.body })
    return body
  },
}
`
const spaHtml = (script: string, nonce = '') =>
  '<!doctype html><html><head><meta charset="utf-8"><title>app</title></head>' +
  `<body><main id="app"><h1>App</h1><p>A single-page application.</p></main>` +
  `<script type="module"${nonce === '' ? '' : ` nonce="${nonce}"`}>${script}</script></body></html>`

/** Serves a single-page application under /app/ on the playground's own origin. */
async function spa(page: Page, script = APP, headers: Record<string, string> = {}, nonce = '') {
  await page.route(
    (u) => u.pathname.startsWith('/app'),
    (r) => r.fulfill({ contentType: 'text/html', headers, body: spaHtml(script, nonce) }),
  )
}

/** The real server's page at `path`, rewritten by `edit` on its way to the browser. */
async function rewrite(page: Page, path: string, edit: (body: string) => string) {
  await page.route(
    (u) => u.pathname === path,
    async (r) => {
      const res = await r.fetch()
      await r.fulfill({ response: res, body: edit(await res.text()) })
    },
  )
}

/** Removes the injected island and toolbar script: the same page without the toolbar. */
const withoutToolbar = (body: string) =>
  body.replace(
    /<script type="application\/json" id="fw-debug-data" hidden>[\s\S]*?<\/script><script[^>]*data-config="[^"]*">[\s\S]*?<\/script>/,
    '',
  )

/** The harness's `withPage` on this suite's browser, with `options` for the browser context. */
function withPage(
  fn: (page: Page, problems: string[]) => Promise<void>,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<void> {
  return pageOf(browser, fn, { context: options })
}

const ready = (page: Page) => page.locator('fw-debugbar .head .tab').first().waitFor()

async function home(page: Page, path = '/') {
  await page.goto(`${pg.url}${path}`)
  await ready(page)
}

/** The single-page application (after `spa(page)`): the bar the module built. */
const app = (page: Page, path = '/app/') => home(page, path)

type Spa = {
  record(m: string, p: string, s: number | null, d?: unknown, o?: object): void
  reportError(e: unknown, o?: { kind?: string }): void
  call(path: string, init?: RequestInit): Promise<unknown>
}
type Host = Window & { spa: Spa; __fwDebugBar: Record<string, unknown> & Spa }

/** Text of each cell of every row of a table inside the open panel. */
function cells(page: Page, selector: string): Promise<string[][]> {
  return page.evaluate(
    (selector) =>
      Array.from(
        document.querySelector('fw-debugbar')!.shadowRoot!.querySelectorAll(`${selector} tbody tr`),
        (tr) => Array.from(tr.querySelectorAll(':scope > td'), (td) => td.textContent ?? ''),
      ),
    selector,
  )
}

/** A section of the Client panel as label → value (its `dl`), plus its notes. */
function section(page: Page, name: string) {
  return page.evaluate((name) => {
    const s = document
      .querySelector('fw-debugbar')!
      .shadowRoot!.querySelector(`section[data-section="${name}"]`)
    if (s === null) return null
    const pairs: Record<string, string> = {}
    for (const dt of s.querySelectorAll('dt'))
      pairs[dt.textContent ?? ''] = dt.nextElementSibling?.textContent ?? ''
    return {
      title: s.querySelector('h3')?.textContent ?? '',
      pairs,
      notes: Array.from(s.querySelectorAll('.note'), (n) => n.textContent ?? ''),
      rows: Array.from(s.querySelectorAll('tbody tr'), (tr) =>
        Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? ''),
      ),
      text: s.textContent ?? '',
    }
  }, name)
}

const shadowText = (page: Page) =>
  page.evaluate(() => document.querySelector('fw-debugbar')!.shadowRoot!.textContent ?? '')

const barCount = (page: Page) =>
  page.evaluate(() => document.querySelectorAll('fw-debugbar').length)

// ---------------------------------------------------------------------------------------------
// A kernel of our own: a strict CSP with a nonce, and a page with a large island.

const policy = (nonce: string) =>
  `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
  `img-src 'self'; connect-src 'self'; base-uri 'none'; object-src 'none'`
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>page</title></head>' +
  '<body><h1>Orders</h1><p>An ordinary page.</p><button id="page-button">Order</button></body></html>'

async function sideKernel(): Promise<{ kernel: Kernel; url: string }> {
  const kernel = createTestKernel({
    config: {
      app: { name: 'client-test', key: 'client-test-key-0123456789abcdef0123' },
      development: true,
      features: ['debug'],
    },
  })
  kernel.register(debug)
  // The `log.written` lines this kernel records by hand reach the payload through the logging
  // plugin's projection (the plugin itself, and its log file, are not needed here).
  kernel.register(
    definePlugin({
      name: 'test-logs',
      dependsOn: ['debug'],
      setup: (k: Kernel) => k.plugin('debug').project('logs', logsProjection),
    }),
  )
  kernel.router.get('csp', (ctx: RequestContext) => {
    const nonce = randomBytes(16).toString('base64')
    ctx.state.cspNonce = nonce
    return html(PAGE).header('content-security-policy', policy(nonce))
  })
  kernel.router.get('ping', () => ({ pong: true }))
  // A page whose island is large: a hundred log lines with context, and a big session.
  kernel.router.get('big', (ctx: RequestContext) => {
    for (let i = 0; i < 100; i++)
      ctx.log.record('log.written', {
        level: i % 10 === 0 ? 'warn' : 'info',
        message: `priced cart line ${i} for customer ${1000 + i}`,
        context: {
          line: i,
          sku: `SKU-${String(i).padStart(5, '0')}`,
          rule: 'tiered-discount',
          note: 'the quick brown fox jumps over the lazy dog '.repeat(4),
        },
      })
    ;(ctx.state as Record<string, unknown>).session = {
      cart: Array.from({ length: 300 }, (_, i) => ({
        id: i,
        name: `Product number ${i}`,
        qty: (i % 5) + 1,
        price: 9.99 + i,
      })),
    }
    return html(PAGE)
  })
  const { url } = await kernel.listen(0, '127.0.0.1')
  return { kernel, url }
}

test.before(async () => {
  ;[browser, pg, side] = await Promise.all([launchBrowser(), startPlayground(), sideKernel()])
})

test.after(async () => {
  await Promise.allSettled([browser?.close(), pg?.close(), side?.kernel.close()])
})

// ---------------------------------------------------------------------------------------------
// 1. Errors

test('errors: the tab appears only after a throw; kind, message, folded stack, the request before', async () => {
  await withPage(async (page) => {
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await home(page)
    assert.not.ok((await tabIds(page)).includes('errors'), 'no Errors tab before a failure')
    await page.evaluate(() => {
      setTimeout(() => {
        throw new TypeError('the widget broke')
      })
    })
    await tab(page, 'errors').waitFor()
    assert.is(await tab(page, 'errors').locator('.count').textContent(), '1')
    assert.ok(await tab(page, 'errors').evaluate((b) => b.classList.contains('alert')))
    await openTab(page, 'errors')
    let rows = await cells(page, '.panel table.errors')
    assert.is(rows.length, 1)
    assert.is(rows[0]![0], 'error')
    assert.is(rows[0]![1], 'TypeError: the widget broke')
    assert.is(rows[0]![3], '#1 GET /', 'after the page’s own request')
    // The stack is there, folded.
    const stack = panel(page).locator('table.errors tbody tr').first().locator('details')
    assert.is(await stack.locator('summary').textContent(), 'stack')
    assert.is(await stack.getAttribute('open'), null)
    assert.not.ok(await stack.locator('pre').isVisible())
    assert.match((await stack.locator('pre').textContent()) ?? '', /the widget broke[\s\S]*at /)
    await stack.locator('summary').click()
    assert.ok(await stack.locator('pre').isVisible())

    // A later failure names the request that came before it.
    await page.evaluate(() => fetch('/_demo/ping').then((r) => r.json()))
    await waitForRows(page, 2)
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('after the ping')
      })
    })
    await page.locator('fw-debugbar .panel table.errors tbody tr:nth-child(2)').waitFor()
    rows = await cells(page, '.panel table.errors')
    assert.equal(
      rows.map((r) => [r[0], r[1], r[3]]),
      [
        ['error', 'TypeError: the widget broke', '#1 GET /'],
        ['error', 'Error: after the ping', '#2 GET /_demo/ping'],
      ],
    )
    assert.equal(pageErrors, ['the widget broke', 'after the ping'], 'the page still sees them')
  })
})

test('errors: a page throwing four identical errors shows one row ×4; a rejection is recorded', async () => {
  await withPage(async (page) => {
    await rewrite(page, '/', (body) =>
      body.replace(
        '</head>',
        `<script>addEventListener('load', () => { for (let i = 0; i < 4; i++) setTimeout(function tick() { throw new Error('same failure') }) })</script></head>`,
      ),
    )
    await home(page)
    await page.waitForFunction(
      () =>
        document
          .querySelector('fw-debugbar')
          ?.shadowRoot?.querySelector('[data-tab="errors"] .count')?.textContent === '4',
    )
    await openTab(page, 'errors')
    const rows = await cells(page, '.panel table.errors')
    assert.is(rows.length, 1, 'one row')
    assert.is(rows[0]![1], 'Error: same failure ×4')
    assert.is(await panel(page).locator('[data-count]').getAttribute('data-count'), '4')
    assert.is(await panel(page).locator('[data-count]').textContent(), ' ×4')

    await page.evaluate(() => {
      void Promise.reject(new RangeError('nobody caught this'))
    })
    await page.locator('fw-debugbar .panel table.errors tbody tr:nth-child(2)').waitFor()
    const after = await cells(page, '.panel table.errors')
    assert.equal(
      [after[1]![0], after[1]![1]],
      ['unhandledrejection', 'RangeError: nobody caught this'],
    )
    assert.is(await tab(page, 'errors').locator('.count').textContent(), '5')
    await screenshot(page, 'client-errors')
  })
})

test('errors: the listeners are passive: the page’s own listeners see defaultPrevented false', async () => {
  for (const load of [home, app])
    await withPage(async (page) => {
      await spa(page)
      await load(page)
      const seen = await page.evaluate(
        () =>
          new Promise<string[]>((resolve) => {
            const seen: string[] = []
            addEventListener('error', (e) => {
              if (seen.push(`error ${e.defaultPrevented}`) === 2) resolve(seen)
            })
            addEventListener('unhandledrejection', (e) => {
              if (seen.push(`rejection ${e.defaultPrevented}`) === 2) resolve(seen)
            })
            setTimeout(() => {
              throw new Error('passive check')
            })
            void Promise.reject(new Error('passive rejection'))
          }),
      )
      assert.equal(seen.sort(), ['error false', 'rejection false'])
      await tab(page, 'errors').waitFor()
      assert.is(await tab(page, 'errors').locator('.count').textContent(), '2')
    })
})

test('errors: window.__fwDebugBar.reportError(error) and the module’s reportError(error, {kind})', async () => {
  await withPage(async (page) => {
    await home(page)
    await page.evaluate(() => {
      ;(window as unknown as Host).__fwDebugBar.reportError(new Error('reported by the page'))
      ;(window as unknown as Host).__fwDebugBar.reportError('a plain string', { kind: 'custom' })
    })
    await openTab(page, 'errors')
    assert.equal(
      (await cells(page, '.panel table.errors')).map((r) => [r[0], r[1], r[3]]),
      [
        ['reported', 'Error: reported by the page', '#1 GET /'],
        ['custom', 'a plain string', '#1 GET /'],
      ],
    )
  })
  await withPage(async (page) => {
    await spa(page)
    await app(page)
    assert.not.ok((await tabIds(page)).includes('errors'))
    await page.evaluate(async () => {
      const w = window as unknown as Host
      await w.spa.call('/_demo/ping')
      w.spa.reportError(new Error('the API client gave up'), { kind: 'api' })
      w.spa.reportError(new Error('no kind'))
      w.__fwDebugBar.reportError(new Error('through the global'))
    })
    await openTab(page, 'errors')
    assert.equal(
      (await cells(page, '.panel table.errors')).map((r) => [r[0], r[1], r[3]]),
      [
        ['api', 'Error: the API client gave up', '#1 GET /_demo/ping'],
        ['reported', 'Error: no kind', '#1 GET /_demo/ping'],
        ['reported', 'Error: through the global', '#1 GET /_demo/ping'],
      ],
    )
  })
})

// ---------------------------------------------------------------------------------------------
// 2. Client

const FW = {
  appName: 'shop',
  apiKey: 'k-live-123',
  account: { clientSecret: 'very-secret', user: 'ann' },
  features: ['search', 'cart'],
  services: [{ name: 'payments', password: 'p4ss', url: '/pay' }],
  router: { base: '/app/', route: 'products.show', params: { id: '7', resetToken: 'abc' } },
}

test('client: window.__FW__ with secrets masked by key name; router inside its base', async () => {
  await withPage(async (page) => {
    await page.addInitScript((fw) => {
      ;(window as unknown as { __FW__: unknown }).__FW__ = fw
    }, FW)
    await spa(page)
    await app(page, '/app/products/7?tab=reviews')
    assert.ok((await tabIds(page)).includes('client'), 'Client is always there')
    await openTab(page, 'client')
    const config = JSON.parse(
      (await panel(page).locator('[data-fw-config]').textContent()) ?? '',
    ) as unknown
    assert.equal(config, {
      appName: 'shop',
      apiKey: '***',
      account: { clientSecret: '***', user: 'ann' },
      features: ['search', 'cart'],
      services: [{ name: 'payments', password: '***', url: '/pay' }],
      router: { base: '/app/', route: 'products.show', params: { id: '7', resetToken: '***' } },
    })
    const text = await shadowText(page)
    for (const secret of ['k-live-123', 'very-secret', 'p4ss', 'abc"'])
      assert.not.ok(text.includes(secret), `${secret} is not shown`)
    const router = await section(page, 'Router')
    assert.equal(router!.pairs, {
      'Current URL': `${pg.url}/app/products/7?tab=reviews`,
      'Router base': '/app/',
      'Resolved route': 'products.show',
      Parameters: '{"id":"7","resetToken":"***"}',
    })
    assert.equal(router!.notes, [], 'no sentence inside the base')
  })
})

test('client: a path outside the router base is said in words; the server route otherwise', async () => {
  await withPage(async (page) => {
    await page.addInitScript((fw) => {
      ;(window as unknown as { __FW__: unknown }).__FW__ = fw
    }, FW)
    await home(page, '/?from=test')
    await openTab(page, 'client')
    const router = await section(page, 'Router')
    assert.is(router!.pairs['Router base'], '/app/')
    assert.is(router!.pairs['Current URL'], `${pg.url}/?from=test`)
    assert.not.ok('Parameters' in router!.pairs)
    assert.equal(router!.notes, [
      'The current path / does not start with the router base /app/, so the router does not handle this page.',
    ])
    assert.is(await panel(page).locator('[data-outside]').count(), 1)
  })
  await withPage(async (page) => {
    // No window.__FW__: the base is the site root, the route the page's own (from the server).
    await home(page)
    await openTab(page, 'client')
    const config = await section(page, 'Runtime')
    assert.equal(config!.notes, ['absent'])
    const router = await section(page, 'Router')
    assert.equal(router!.pairs, {
      'Current URL': `${pg.url}/`,
      'Router base': '/',
      'Resolved route': 'home',
      Parameters: '{}',
    })
    assert.equal(router!.notes, [])
  })
})

test('client: storage keys with values masked by key name (lengths kept), long values truncated', async () => {
  await withPage(async (page) => {
    await home(page)
    await page.evaluate(() => {
      localStorage.setItem('theme', 'dark')
      localStorage.setItem('auth_token', 'abc.def.ghi')
      localStorage.setItem('userPassword', 'hunter2')
      localStorage.setItem('draft', 'x'.repeat(1000))
      sessionStorage.setItem('step', '2')
      sessionStorage.setItem('csrfToken', 'zzz')
    })
    await openTab(page, 'client')
    const local = await section(page, 'localStorage')
    assert.is(local!.title, 'localStorage (4)')
    const byKey = Object.fromEntries(local!.rows.map(([k, v]) => [k, v]))
    assert.equal(Object.keys(byKey).sort(), ['auth_token', 'draft', 'theme', 'userPassword'])
    assert.is(byKey.theme, 'dark')
    assert.is(byKey.auth_token, '*** (11 chars)')
    assert.is(byKey.userPassword, '*** (7 chars)')
    assert.is(byKey.draft, `${'x'.repeat(200)}… (1000 chars)`)
    const session = await section(page, 'sessionStorage')
    assert.is(session!.title, 'sessionStorage (2)')
    assert.equal(Object.fromEntries(session!.rows.map(([k, v]) => [k, v])), {
      step: '2',
      csrfToken: '*** (3 chars)',
    })
    const text = await shadowText(page)
    assert.not.ok(text.includes('hunter2') || text.includes('abc.def.ghi') || text.includes('zzz'))
  })
})

test('client: unreadable storage costs only its own section; an absent area is reported absent', async () => {
  await withPage(async (page, problems) => {
    await page.addInitScript(() => {
      Object.defineProperty(window, 'localStorage', {
        configurable: true,
        get() {
          throw new DOMException('storage is blocked here', 'SecurityError')
        },
      })
      Object.defineProperty(window, 'sessionStorage', { configurable: true, value: undefined })
      ;(window as unknown as { __FW__: unknown }).__FW__ = { appName: 'locked-down' }
    })
    await home(page)
    await openTab(page, 'client')
    const local = await section(page, 'localStorage')
    assert.equal(local!.notes, ['unreadable: storage is blocked here'])
    const session = await section(page, 'sessionStorage')
    assert.equal(session!.notes, ['absent'])
    // Everything else is still there.
    assert.is((await section(page, 'Router'))!.pairs['Resolved route'], 'home')
    assert.match((await section(page, 'Runtime'))!.text, /locked-down/)
    assert.ok((await tabIds(page)).includes('requests'))
    // Hiding still works, for this page only.
    await page.locator('fw-debugbar .close').click()
    await page.locator('fw-debugbar .handle').waitFor()
    assert.equal(
      problems.filter((p) => !/favicon|404/.test(p)),
      [],
    )
  })
  await withPage(async (page) => {
    // Storage whose reading fails half-way: the other area and sections are unharmed.
    await page.addInitScript(() => {
      const local = window.localStorage
      const getItem = Storage.prototype.getItem
      Storage.prototype.getItem = function (this: Storage, key: string) {
        if (this === local && key !== 'fw.debugbar.hidden') throw new Error('quota daemon died')
        return getItem.call(this, key)
      }
    })
    await home(page)
    await page.evaluate(() => {
      localStorage.setItem('a', '1')
      sessionStorage.setItem('b', '2')
    })
    await openTab(page, 'client')
    assert.equal((await section(page, 'localStorage'))!.notes, ['unreadable: quota daemon died'])
    assert.equal((await section(page, 'sessionStorage'))!.rows, [['b', '2']])
  })
})

// ---------------------------------------------------------------------------------------------
// 3. Hiding

test('hiding: a tab opens and closes; the close control leaves a small handle at bottom right', async () => {
  await withPage(
    async (page) => {
      await home(page)
      const requests = tab(page, 'requests')
      await requests.click()
      assert.is(await requests.getAttribute('aria-selected'), 'true')
      assert.ok(await page.locator('fw-debugbar .panel[data-panel="requests"]').isVisible())
      await requests.click()
      assert.is(await requests.getAttribute('aria-selected'), 'false')
      assert.not.ok(await panel(page).isVisible())

      await page.locator('fw-debugbar .close').click()
      const handle = page.locator('fw-debugbar .handle')
      await handle.waitFor()
      assert.not.ok(await page.locator('fw-debugbar .bar').isVisible())
      const box = (await handle.boundingBox())!
      assert.ok(box.width <= 60 && box.height <= 40, `small: ${box.width}×${box.height}`)
      assert.ok(1000 - (box.x + box.width) <= 16, `at the right: ${JSON.stringify(box)}`)
      assert.ok(600 - (box.y + box.height) <= 16, `at the bottom: ${JSON.stringify(box)}`)
      assert.is(await page.evaluate(() => localStorage.getItem('fw.debugbar.hidden')), '1')
      assert.is(await page.evaluate(() => (window as unknown as Host).__fwDebugBar.hidden), true)
      // The hidden bar takes no room beyond its handle: the page underneath stays clickable.
      const host = (await page.locator('fw-debugbar').boundingBox())!
      assert.ok(host.width <= 60 && host.height <= 40, JSON.stringify(host))
      await screenshot(page, 'client-hidden')

      await handle.click()
      assert.ok(await page.locator('fw-debugbar .bar').isVisible())
      assert.not.ok(await handle.isVisible())
      assert.is(await page.evaluate(() => localStorage.getItem('fw.debugbar.hidden')), null)
    },
    { viewport: { width: 1000, height: 600 } },
  )
})

test('hiding: a hidden bar stays hidden after reload in both deliveries, which share the state', async () => {
  await withPage(async (page) => {
    await spa(page)
    const isHidden = async () => {
      await page
        .locator('fw-debugbar .bar:not([hidden]) .tab, fw-debugbar .handle:not([hidden])')
        .first()
        .waitFor()
      const bar = await page.locator('fw-debugbar .bar').isVisible()
      const handle = await page.locator('fw-debugbar .handle').isVisible()
      assert.is.not(bar, handle, 'either the bar or the handle')
      return handle
    }
    const load = async (path: string) => {
      await page.goto(`${pg.url}${path}`)
      await page.locator('fw-debugbar .handle').waitFor({ state: 'attached' })
      return isHidden()
    }
    assert.is(await load('/'), false)
    await page.locator('fw-debugbar .close').click()
    await page.reload()
    assert.is(await isHidden(), true, 'inline: hidden after reload')
    assert.is(await load('/app/'), true, 'the module starts hidden: the state is shared')
    await page.reload()
    assert.is(await isHidden(), true, 'module: hidden after reload')
    assert.is(
      await page.evaluate(() => (window as unknown as Host).__fwDebugBar.delivery),
      'module',
    )

    await page.locator('fw-debugbar .handle').click()
    assert.is(await isHidden(), false)
    assert.is(await load('/'), false, 'shown in the module, shown inline')
    await page.locator('fw-debugbar .close').click()
    await page.goto(`${pg.url}/app/`)
    assert.is(await isHidden(), true, 'hidden inline, hidden in the module')
    await page.locator('fw-debugbar .handle').click()
    await page.reload()
    assert.is(await isHidden(), false, 'module: shown after reload')
    assert.is(await load('/'), false)
  })
})

// ---------------------------------------------------------------------------------------------
// 4. Both deliveries

/** The requests table with what changes from run to run (ids, times) blanked. */
async function requestRows(page: Page) {
  await openTab(page, 'requests')
  return (await cells(page, '.panel table.requests')).map((r) => [
    r[1],
    r[2],
    r[3],
    r[4] === '' ? '' : /^[\d.,]+ ms$/.test(r[4]!) ? 'time' : r[4],
    r[5],
    /^[0-9a-f]{16}( server log)?$/.test(r[6]!.trim()) ? 'id' : r[6]!.trim(),
  ])
}

test('deliveries: record() rows look like the inline ones; an app’s default view is its newest request', async () => {
  const calls = ['/_demo/queries?n=3', '/_demo/ping', '/api/v1/products/999999']
  // The API key's application is looked up once, then cached for 5 s: warm it right before each
  // page's API call, so both pages see the same queries however long the other steps take.
  const warmKey = async (path: string) => {
    if (path.startsWith('/api/'))
      await fetch(`${pg.url}/api/v1/products/999999`, { headers: { apikey: 'demo-api-key' } })
  }
  let inline: unknown[][] = []
  let inlineSql = ''
  await withPage(async (page) => {
    await home(page)
    for (const path of calls) {
      await warmKey(path)
      await page.evaluate(
        (path) => fetch(path, { headers: { apikey: 'demo-api-key', accept: 'application/json' } }),
        path,
      )
    }
    await waitForRows(page, 4)
    inline = await requestRows(page)
    assert.is(inline.length, 4)
    // The server-rendered page keeps showing its own request until one is picked.
    await openTab(page, 'route')
    assert.match((await panel(page).textContent()) ?? '', /^#1 GET \//)
    await openTab(page, 'requests')
    await panel(page).locator('[data-row="2"] .pick').click()
    await openTab(page, 'sql')
    inlineSql = ((await panel(page).textContent()) ?? '').replace(/[\d.,]+ ms/g, 'T')
  })
  await withPage(async (page) => {
    await spa(page)
    await app(page)
    assert.equal(await tabIds(page), ['client'], 'nothing recorded yet, no API settings')
    for (const path of calls) {
      await warmKey(path)
      await page.evaluate(
        (path) =>
          (window as unknown as Host).spa.call(path, {
            headers: { apikey: 'demo-api-key', accept: 'application/json' },
          }),
        path,
      )
    }
    await waitForRows(page, 3)
    const rows = await requestRows(page)
    assert.equal(rows, inline.slice(0, 3), 'the same rows, newest first')
    assert.equal(rows[0], ['GET', '/api/v1/products/999999', '404', 'time', '1', 'id'])
    assert.ok(
      await panel(page)
        .locator('[data-row="3"]')
        .evaluate((tr) => tr.classList.contains('failed')),
    )
    // The default view is the newest request.
    await openTab(page, 'route')
    assert.match((await panel(page).textContent()) ?? '', /^#3 GET \/api\/v1\/products\/999999/)
    await page.evaluate(() => (window as unknown as Host).spa.call('/_demo/queries?n=3'))
    await waitForRows(page, 4)
    await openTab(page, 'sql')
    const spaSql = ((await panel(page).textContent()) ?? '').replace(/[\d.,]+ ms/g, 'T')
    assert.is(spaSql.replace(/^#4/, '#2'), inlineSql, 'the SQL tab reads the same')
    // A network failure recorded with no status, and a body.
    await page.evaluate(() =>
      (window as unknown as Host).spa.record('POST', '/_demo/gone', null, undefined, {
        ms: 12,
        body: { name: 'x', password: 'p' },
      }),
    )
    await waitForRows(page, 5)
    const last = (await requestRows(page))[0]
    assert.equal(last, ['POST', '/_demo/gone', 'failed (no response)', 'time', '', ''])
    await screenshot(page, 'client-module-requests')
  })
})

const namesAtStart = () => {
  ;(window as unknown as Record<symbol, string[]>)[Symbol.for('fw.test.window-names')] =
    Object.getOwnPropertyNames(window)
}
const namesAdded = (page: Page) =>
  page.evaluate(() => {
    const before = new Set(
      (window as unknown as Record<symbol, string[]>)[Symbol.for('fw.test.window-names')],
    )
    return Object.getOwnPropertyNames(window)
      .filter((n) => !before.has(n))
      .sort()
  })

test('deliveries: window.__fwDebugBar is the only global the toolbar adds', async () => {
  const added: Record<string, string[]> = {}
  for (const [name, toolbar] of [
    ['inline', true],
    ['bare', false],
  ] as const)
    await withPage(async (page) => {
      await page.addInitScript(namesAtStart)
      if (!toolbar) await rewrite(page, '/', withoutToolbar)
      await page.goto(`${pg.url}/`)
      await page.waitForLoadState('load')
      if (toolbar) await ready(page)
      else assert.is(await barCount(page), 0)
      // Traffic after load, with the wrappers in place.
      await page.evaluate(() => fetch('/_demo/ping').then((r) => r.text()))
      added[name] = await namesAdded(page)
    })
  for (const [name, script] of [
    ['module', `import '/_fw/debugbar.mjs'`],
    ['shell', `document.title = 'app'`],
  ] as const)
    await withPage(async (page) => {
      await page.addInitScript(namesAtStart)
      await spa(page, script)
      await page.goto(`${pg.url}/app/`)
      await page.waitForLoadState('load')
      if (name === 'module') await page.locator('fw-debugbar .head').waitFor()
      added[name] = await namesAdded(page)
    })
  const extra = (a: string[], b: string[]) => a.filter((n) => !b.includes(n))
  assert.equal(extra(added.inline!, added.bare!), ['__fwDebugBar'])
  assert.equal(extra(added.module!, added.shell!), ['__fwDebugBar'])
  assert.equal(extra(added.bare!, added.inline!), [])
  await withPage(async (page) => {
    await home(page)
    const shape = await page.evaluate(() => {
      const d = Object.getOwnPropertyDescriptor(window, '__fwDebugBar')!
      return {
        enumerable: d.enumerable,
        writable: d.writable,
        keys: Object.keys(d.value as object).sort(),
        frozen: Object.isFrozen(d.value),
        inKeys: Object.keys(window).includes('__fwDebugBar'),
      }
    })
    assert.equal(shape, {
      enumerable: false,
      writable: false,
      keys: ['delivery', 'dev', 'hidden', 'record', 'reportError'],
      frozen: true,
      inKeys: false,
    })
  })
})

test('deliveries: a second copy of the script, or the module on an inline page, builds no second bar', async () => {
  await withPage(async (page) => {
    await home(page)
    await page.addScriptTag({ url: '/_fw/debugbar.js' })
    await page.evaluate(async () => {
      const url = '/_fw/debugbar.mjs'
      const m = (await import(url)) as Spa
      m.record('GET', '/recorded/by/module', 200, { time: 1.5, route: { name: 'x', path: 'x' } })
    })
    await waitForRows(page, 2)
    assert.is(await barCount(page), 1)
    assert.is(
      await page.evaluate(() => (window as unknown as Host).__fwDebugBar.delivery),
      'inline',
    )
    // fetch is wrapped once: one request, one row.
    await page.evaluate(() => fetch('/_demo/ping').then((r) => r.json()))
    await waitForRows(page, 3)
    await page.waitForTimeout(100)
    assert.is(await tab(page, 'requests').locator('.count').textContent(), '3')
    assert.equal(
      (await requestRows(page)).map((r) => r[1]),
      ['/_demo/ping', '/recorded/by/module', '/this page'],
    )
  })
  await withPage(async (page) => {
    await spa(page)
    await app(page)
    await page.addScriptTag({ url: '/_fw/debugbar.js' })
    await page.addScriptTag({ url: '/_fw/debugbar.js' })
    assert.is(await barCount(page), 1)
    assert.is(
      await page.evaluate(() => (window as unknown as Host).__fwDebugBar.delivery),
      'module',
    )
    // The classic copy found the module's bar and wrapped nothing.
    await page.evaluate(() => fetch('/_demo/ping').then((r) => r.json()))
    await page.waitForTimeout(100)
    assert.not.ok((await tabIds(page)).includes('requests'))
  })
})

// ---------------------------------------------------------------------------------------------
// 5. Built for the page it lives on

const HOSTILE = `<style>
div, button { display: none !important; color: red !important }
* { all: unset; font-size: 31px !important; letter-spacing: 3px !important; line-height: 3 !important;
    text-transform: uppercase !important; font-family: serif !important; color: rgb(255, 0, 0) !important;
    --bg: red !important; --fg: red !important }
head, script, style { display: none !important }
</style>`

/** Computed styles of the bar's inner elements that a page could try to change. */
function barStyles(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector('fw-debugbar')!.shadowRoot!
    const out: Record<string, Record<string, string | number | boolean>> = {}
    for (const sel of ['.bar', '.head', '.tab', '.close', '.panel', '.panel td']) {
      const el = root.querySelector(sel)!
      const s = getComputedStyle(el)
      const r = el.getBoundingClientRect()
      out[sel] = {
        display: s.display,
        font: s.font,
        color: s.color,
        background: s.backgroundColor,
        letterSpacing: s.letterSpacing,
        textTransform: s.textTransform,
        visible: r.width > 0 && r.height > 0,
        height: Math.round(r.height),
      }
    }
    out.host = { position: getComputedStyle(document.querySelector('fw-debugbar')!).position }
    return out
  })
}

const PROBE =
  '<div id="probe"><div class="bar"><div class="head"><button class="tab">page tab</button></div>' +
  '<div class="panel"><table class="grid"><tr><td>cell</td></tr></table><pre>pre</pre>' +
  '<details><summary>sum</summary>x</details><p class="note">note</p></div></div></div>'

/** Computed styles of the page's own elements that share the bar's class names. */
function pageStyles(page: Page) {
  return page.evaluate(() => {
    const out: Record<string, string> = {}
    for (const sel of ['.bar', '.head', '.tab', '.panel', 'td', 'pre', 'summary', '.note', 'h1']) {
      const el = document.querySelector(sel === 'h1' ? 'h1' : `#probe ${sel}`)!
      const s = getComputedStyle(el)
      out[sel] = [
        s.display,
        s.boxSizing,
        s.font,
        s.color,
        s.backgroundColor,
        s.padding,
        s.borderTopWidth,
      ].join(' | ')
    }
    return out
  })
}

test('page: styles are scoped both ways: a hostile page leaves the bar alone, the bar leaves the page alone', async () => {
  let clean: Awaited<ReturnType<typeof barStyles>> | undefined
  await withPage(async (page) => {
    await home(page)
    await openTab(page, 'requests')
    clean = await barStyles(page)
  })
  await withPage(async (page) => {
    await rewrite(page, '/', (b) => b.replace('</head>', `${HOSTILE}</head>`))
    await home(page)
    await openTab(page, 'requests')
    assert.equal(await barStyles(page), clean, 'the page’s rules do not reach inside the bar')
    assert.ok(clean!['.tab']!.visible && clean!['.bar']!.background !== 'rgba(0, 0, 0, 0)')
    assert.is(clean!['.head']!.display, 'flex')
    assert.is(clean!.host!.position, 'fixed')
    await screenshot(page, 'client-hostile-page')
    // Still usable.
    await tab(page, 'client').click()
    assert.ok(await page.locator('fw-debugbar .panel[data-panel="client"]').isVisible())
  })
  const probes: Record<string, string>[] = []
  for (const toolbar of [true, false])
    await withPage(async (page) => {
      await rewrite(page, '/', (b) =>
        (toolbar ? b : withoutToolbar(b)).replace('</body>', `${PROBE}</body>`),
      )
      await page.goto(`${pg.url}/`)
      if (toolbar) {
        await ready(page)
        await openTab(page, 'requests')
      }
      probes.push(await pageStyles(page))
    })
  assert.equal(probes[0], probes[1], 'the bar’s rules do not reach the page')
})

test('page: works under a strict CSP with the configured nonce, in both deliveries', async () => {
  const violations = () => {
    const list: string[] = []
    ;(window as unknown as Record<symbol, string[]>)[Symbol.for('fw.test.csp')] = list
    document.addEventListener('securitypolicyviolation', (e) =>
      list.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`),
    )
  }
  const seen = (page: Page) =>
    page.evaluate(() => (window as unknown as Record<symbol, string[]>)[Symbol.for('fw.test.csp')])
  await withPage(async (page, problems) => {
    await page.addInitScript(violations)
    const res = await page.goto(`${side.url}/csp`)
    const header = (await res!.headerValue('content-security-policy')) ?? ''
    const nonce = /'nonce-([^']+)'/.exec(header)![1]!
    await ready(page)
    const style = await page.evaluate(() => {
      const root = document.querySelector('fw-debugbar')!.shadowRoot!
      return {
        nonce: root.querySelector('style')!.nonce,
        background: getComputedStyle(root.querySelector('.bar')!).backgroundColor,
        script: (document.querySelector('script[data-config]') as HTMLScriptElement).nonce,
      }
    })
    assert.is(style.nonce, nonce, 'the style element carries the nonce')
    assert.is(style.script, nonce)
    assert.is.not(style.background, 'rgba(0, 0, 0, 0)', 'the styles applied')
    // Traffic, the timeline (geometry through the CSSOM), every tab.
    await page.evaluate(() => fetch('/ping').then((r) => r.json()))
    await waitForRows(page, 2)
    await openTab(page, 'requests')
    assert.is(await panel(page).locator('.tbar').count(), 2)
    for (const id of await tabIds(page)) await openTab(page, id)
    await page.locator('fw-debugbar .close').click()
    await page.locator('fw-debugbar .handle').click()
    assert.equal(await seen(page), [])
    assert.equal(
      problems.filter((p) => /Content Security Policy|Refused/.test(p)),
      [],
    )
    await screenshot(page, 'client-csp')
  })
  await withPage(async (page, problems) => {
    const nonce = randomBytes(12).toString('base64')
    await page.addInitScript(violations)
    await spa(page, APP, { 'content-security-policy': policy(nonce) }, nonce)
    await app(page)
    await page.evaluate(() => (window as unknown as Host).spa.call('/_demo/ping'))
    await waitForRows(page, 1)
    await openTab(page, 'requests')
    const styleNonce = await page.evaluate(
      () => document.querySelector('fw-debugbar')!.shadowRoot!.querySelector('style')!.nonce,
    )
    assert.is(styleNonce, nonce)
    assert.equal(await seen(page), [])
    assert.equal(
      problems.filter((p) => /Content Security Policy|Refused/.test(p)),
      [],
    )
  })
})

/** The focused element inside the bar: its tab id, its class, or null when focus is elsewhere. */
function focusedInBar(page: Page) {
  return page.evaluate(() => {
    const a = document.activeElement
    if (a?.tagName !== 'FW-DEBUGBAR') return null
    const inner = a.shadowRoot!.activeElement as HTMLElement | null
    return inner === null ? 'host' : (inner.dataset.tab ?? inner.className)
  })
}

test('page: keyboard reachable: Tab reaches a tab button, Enter opens it, Escape closes it', async () => {
  await withPage(async (page) => {
    await home(page)
    let focused: string | null = null
    for (let i = 0; i < 120 && focused === null; i++) {
      await page.keyboard.press('Tab')
      focused = await focusedInBar(page)
    }
    assert.is(focused, 'requests', 'the first stop in the bar is its first tab')
    await page.keyboard.press('Enter')
    await page.locator('fw-debugbar .panel[data-panel="requests"]').waitFor()
    assert.is(await tab(page, 'requests').getAttribute('aria-selected'), 'true')
    assert.is(await focusedInBar(page), 'requests', 'focus stays on the tab')
    await page.keyboard.press('Escape')
    await panel(page).waitFor({ state: 'hidden' })
    assert.is(await tab(page, 'requests').getAttribute('aria-selected'), 'false')
    // On to the next tab, and to the close control; the handle takes focus and brings it back.
    await page.keyboard.press('Tab')
    assert.is(await focusedInBar(page), 'time')
    await page.keyboard.press('Space')
    await page.locator('fw-debugbar .panel[data-panel="time"]').waitFor()
    await page.keyboard.press('Escape')
    for (let i = 0; i < 20 && focused !== 'close'; i++) {
      await page.keyboard.press('Tab')
      focused = await focusedInBar(page)
    }
    assert.is(focused, 'close')
    await page.keyboard.press('Enter')
    await page.locator('fw-debugbar .handle').waitFor()
    assert.is(await focusedInBar(page), 'handle')
    await page.keyboard.press('Enter')
    await page.locator('fw-debugbar .bar').waitFor()
    assert.is(await focusedInBar(page), 'requests')
  })
})

test('page: the tablist owns only tabs (axe aria-required-children); close and chip sit beside it', async () => {
  await withPage(async (page) => {
    await home(page)
    // A selected request puts the chip (a button) in the head too.
    await page.locator('fw-debugbar .tab[data-tab="requests"]').click()
    await page.locator('fw-debugbar tr[data-row="1"] button.pick').click()
    await page.locator('fw-debugbar .chip').waitFor()
    const found = await page.evaluate(() => {
      const root = document.querySelector('fw-debugbar')!.shadowRoot!
      const lists = Array.from(root.querySelectorAll('[role="tablist"]'))
      const children = lists.flatMap((l) =>
        Array.from(l.children, (c) => c.getAttribute('role') ?? c.tagName.toLowerCase()),
      )
      const close = root.querySelector('.close')!
      const chip = root.querySelector('.chip')!
      return {
        lists: lists.length,
        label: lists[0]?.getAttribute('aria-label'),
        children,
        closeInList: close.closest('[role="tablist"]') !== null,
        chipInList: chip.closest('[role="tablist"]') !== null,
        tabsOutside: Array.from(root.querySelectorAll('[role="tab"]')).filter(
          (t) => t.parentElement?.getAttribute('role') !== 'tablist',
        ).length,
      }
    })
    assert.is(found.lists, 1)
    assert.is(found.label, 'fw debug toolbar')
    assert.ok(found.children.length > 1, JSON.stringify(found.children))
    assert.ok(
      found.children.every((r) => r === 'tab'),
      JSON.stringify(found.children),
    )
    assert.is(found.closeInList, false)
    assert.is(found.chipInList, false)
    assert.is(found.tabsOutside, 0)
  })
})

function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}
function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p)
  return (x! + 0.05) / (y! + 0.05)
}

test('page: readable in light and dark color schemes', async () => {
  const colors: Record<string, Record<string, string>> = {}
  for (const scheme of ['light', 'dark'] as const)
    await withPage(
      async (page) => {
        await home(page)
        await page.evaluate(() => fetch('/api/v1/products/999999').then((r) => r.text()))
        await waitForRows(page, 2)
        await openTab(page, 'requests')
        colors[scheme] = await page.evaluate(() => {
          const root = document.querySelector('fw-debugbar')!.shadowRoot!
          const out: Record<string, string> = {}
          for (const [key, sel, prop] of [
            ['background', '.bar', 'backgroundColor'],
            ['text', '.tab', 'color'],
            ['cell', '.panel td', 'color'],
            ['dim', '.sum', 'color'],
            ['failed', '.panel tr.failed td', 'color'],
            ['failedBackground', '.panel tr.failed td', 'backgroundColor'],
            ['brand', '.brand', 'color'],
          ] as const)
            out[key] = getComputedStyle(root.querySelector(sel)!)[prop]
          return out
        })
        await screenshot(page, `client-${scheme}`)
      },
      { colorScheme: scheme },
    )
  const { light, dark } = colors as { light: Record<string, string>; dark: Record<string, string> }
  assert.is.not(light.background, dark.background)
  assert.is.not(light.text, dark.text)
  assert.ok(luminance(light.background!) > 0.8, `light background ${light.background}`)
  assert.ok(luminance(dark.background!) < 0.05, `dark background ${dark.background}`)
  for (const [scheme, c] of Object.entries(colors)) {
    for (const key of ['text', 'cell', 'dim', 'brand'])
      assert.ok(
        contrast(c[key]!, c.background!) >= 4.5,
        `${scheme} ${key} ${c[key]} on ${c.background}: ${contrast(c[key]!, c.background!).toFixed(2)}`,
      )
    assert.ok(
      contrast(c.failed!, c.failedBackground!) >= 4.5,
      `${scheme} failed row ${contrast(c.failed!, c.failedBackground!).toFixed(2)}`,
    )
  }
})

// ---------------------------------------------------------------------------------------------
// 6. Assets

test('assets: stable names revalidate, hashed files are immutable for a year, sizes in budget', async () => {
  const entry = await fetch(`${pg.url}/_fw/debugbar.mjs`)
  assert.is(entry.status, 200)
  assert.is(entry.headers.get('cache-control'), 'no-cache')
  assert.match(entry.headers.get('content-type') ?? '', /javascript/)
  const text = await entry.text()
  const named = /from '\.\/(debugbar\.([0-9a-f]{10})\.mjs)'/.exec(text)
  assert.ok(named, text)
  const { script } = toolbarAssets()
  const classic = await fetch(`${pg.url}/_fw/debugbar.js`)
  assert.is(classic.headers.get('cache-control'), 'no-cache')
  const classicText = await classic.text()
  const files: [string, string][] = [
    [named[1]!, named[2]!],
    [script, /\.([0-9a-f]{10})\.js$/.exec(script)![1]!],
  ]
  for (const [file, hash] of files) {
    const res = await fetch(`${pg.url}/_fw/${file}`)
    assert.is(res.status, 200, file)
    const cache = res.headers.get('cache-control') ?? ''
    assert.match(cache, /max-age=31536000/, `${file}: ${cache}`)
    assert.match(cache, /immutable/, `${file}: ${cache}`)
    assert.match(res.headers.get('content-type') ?? '', /javascript/)
    const body = Buffer.from(await res.arrayBuffer())
    assert.is(createHash('sha256').update(body).digest('hex').slice(0, 10), hash, 'content hash')
    const gz = gzipSync(body, { level: 9 }).length
    console.log(`  ${file}: ${body.length} bytes minified, ${gz} bytes gzipped`)
    assert.ok(body.length < 60 * 1024, `${file} is ${body.length} bytes`)
    assert.ok(gz < 20 * 1024, `${file} is ${gz} bytes gzipped`)
    if (file.endsWith('.js')) assert.is(body.toString('utf8'), classicText, 'the same script')
  }
})

// ---------------------------------------------------------------------------------------------
// 7. Boot speed

const here = dirname(fileURLToPath(import.meta.url))
const RESULTS = join(here, '..', '..', 'bench', 'results')

interface TraceEvent {
  name: string
  ph: string
  ts: number
  dur?: number
  tdur?: number
  tid: number
  args?: { data?: { type?: string } }
}

/** Work the renderer's main thread does for scripts (nested ones are counted once, in their parent). */
const SCRIPT_WORK = new Set([
  'EvaluateScript',
  'RunMicrotasks',
  'FunctionCall',
  'v8.compile',
  'v8.run',
  'EventDispatch',
  'TimerFire',
  'ParseHTML',
])

/**
 * From a Chromium trace of one page load: the main thread's own time (thread time, `tdur`, which
 * leaves out time the thread spent descheduled on a busy machine) between the two marks around the
 * toolbar's script, in its DOMContentLoaded work, and in the page's first style and layout.
 */
function bootFromTrace(events: TraceEvent[]) {
  const s = events.find((e) => e.name === 'fw-boot-start')!
  const e = events.find((x) => x.name === 'fw-boot-end')!
  const main = events.filter((x) => x.tid === s.tid && x.ph === 'X' && x.dur !== undefined)
  const inWindow = main.filter(
    (x) => SCRIPT_WORK.has(x.name) && x.ts >= s.ts && x.ts + x.dur! <= e.ts,
  )
  const top = inWindow.filter(
    (x) => !inWindow.some((y) => y !== x && y.ts <= x.ts && y.ts + y.dur! >= x.ts + x.dur!),
  )
  const ms = (n: number) => Math.round(n / 10) / 100
  const script = top.reduce((n, x) => n + (x.tdur ?? x.dur!), 0)
  const dcl = main
    .filter((x) => x.name === 'EventDispatch' && x.args?.data?.type === 'DOMContentLoaded')
    .reduce((n, x) => n + (x.tdur ?? x.dur!), 0)
  const after = main.filter((x) => x.ts >= e.ts)
  const style = after.find((x) => x.name === 'UpdateLayoutTree')
  const layout = after.find((x) => x.name === 'Layout')
  return {
    script: ms(script),
    dcl: ms(dcl),
    boot: ms(script + dcl),
    wall: ms(e.ts - s.ts),
    styleLayout: ms((style?.tdur ?? 0) + (layout?.tdur ?? 0)),
  }
}

test('boot: main-thread time of the toolbar on a page with a 50 KB island (printed, not asserted)', async () => {
  const START = "<script>performance.mark('fw-boot-start')</script>"
  const END = "<script>performance.mark('fw-boot-end')</script>"
  const marked = (body: string) => {
    const at = body.indexOf('<script data-config=')
    const end = body.indexOf('</script>', at) + '</script>'.length
    return body.slice(0, at) + START + body.slice(at, end) + END + body.slice(end)
  }
  const runs: ReturnType<typeof bootFromTrace>[] = []
  let island = 0
  // Each run a fresh context: a cold toolbar, as on the first page of a visit.
  for (let i = 0; i < 4; i++)
    await withPage(async (page) => {
      await rewrite(page, '/big', marked)
      await browser.startTracing(page, {
        categories: ['devtools.timeline', 'blink.user_timing', 'v8.execute', 'v8'],
      })
      try {
        await page.goto(`${side.url}/big`)
        await ready(page)
        await page.waitForLoadState('load')
      } finally {
        const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as
          { traceEvents: TraceEvent[] } | TraceEvent[]
        runs.push(bootFromTrace(Array.isArray(trace) ? trace : trace.traceEvents))
      }
      island = await page.evaluate(
        () => document.getElementById('fw-debug-data')!.textContent!.length,
      )
      assert.is(await tab(page, 'logs').locator('.count').textContent(), '100')
    })
  assert.ok(island >= 50 * 1024, `the island holds ${island} characters`)
  const median = (k: keyof (typeof runs)[number]) => {
    const v = runs.map((r) => r[k]).sort((a, b) => a - b)
    const m = v.length / 2
    return Math.round(((v[Math.ceil(m) - 1]! + v[Math.floor(m)]!) / 2) * 100) / 100
  }
  const figure = {
    measured: new Date().toISOString(),
    chromium: browser.version(),
    load_average: loadavg().map((n) => Math.round(n * 100) / 100),
    island_chars: island,
    what:
      'renderer main-thread time (thread time from a Chromium trace) of the inline toolbar script ' +
      '(compile, parse of the island, first render, its microtasks) plus its DOMContentLoaded work, ' +
      'each run a fresh browser context; style_layout_ms is the whole page’s first style and layout',
    boot_ms_median: median('boot'),
    script_ms_median: median('script'),
    dcl_ms_median: median('dcl'),
    wall_ms_median: median('wall'),
    style_layout_ms_median: median('styleLayout'),
    runs,
  }
  console.log(
    `  toolbar boot on a ${island}-character island: ${figure.boot_ms_median} ms main-thread ` +
      `(median of ${runs.length} cold loads: ${runs.map((r) => r.boot).join(', ')}; ` +
      `wall ${figure.wall_ms_median} ms; page style+layout ${figure.style_layout_ms_median} ms)`,
  )
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'toolbar-boot.json'), `${JSON.stringify(figure, null, 2)}\n`)
})

test.run()
