// The toolbar's requests side in Chromium against the real playground: which tabs show, the
// requests list fed by the wrapped fetch and XMLHttpRequest (and the page's own results left
// byte-identical), selection and release, failed rows, the timeline, the server-log button, and
// screenshots of the open bar for a person to look at.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Browser, Locator, Page } from 'playwright-core'
import { json } from 'fw'
import {
  launchBrowser,
  SCREENSHOTS,
  screenshot,
  signIn,
  startPlayground,
  withPage,
  type Playground,
} from './harness.js'
import { freePort } from '../fixtures/free-port.js'
import { openTab, tab, tabIds, waitForRows } from './toolbar.js'

const API_KEY = 'demo-api-key'

interface Context {
  browser: Browser
  /** The playground with its log file (the dev panel answers lines from it). */
  pg: Playground & { logFile: string }
  /** A playground with the DevPanel feature off. */
  off: Playground
  /** A loopback port nothing listens on. */
  closed: number
}

const test = suite<Context>('browser: the requests tab')

/**
 * The playground as `startPlayground()` starts it, but with the logging plugin writing its log
 * file (a file of this run's own, under playground/var/log), so `/devpanel/logs` has lines to
 * answer. A test that recovers from one error with a 200 taps the kernel's `error` hook: the
 * playground has no route that answers 200 after raising something.
 */
async function startWithLogFile(): Promise<Playground & { logFile: string }> {
  const pg = await startPlayground({}, { logging: true })
  // `GET /_demo/error?recover=1`: the handler still throws, the app answers 200 anyway.
  pg.kernel.hooks.error.tapPromise('browser-test-recover', async (_error, ctx) =>
    ctx.query.recover === '1' ? json({ recovered: true }) : undefined,
  )
  return { ...pg, logFile: pg.logFile!, close: () => pg.close() }
}

test.before(async (context) => {
  // All at once; whatever started is kept for after() (which uvu runs even when this throws).
  const [browser, pg, off, closed] = await Promise.allSettled([
    launchBrowser(),
    startWithLogFile(),
    startPlayground({ FW_CONFIG: JSON.stringify({ features: ['debug'] }) }),
    freePort(),
  ])
  const value = <T>(r: PromiseSettledResult<T>) => (r.status === 'fulfilled' ? r.value : undefined)
  Object.assign(context, {
    browser: value(browser),
    pg: value(pg),
    off: value(off),
    closed: value(closed),
  })
  for (const r of [browser, pg, off, closed]) if (r.status === 'rejected') throw r.reason
})

test.after(async ({ browser, pg, off }) => {
  await Promise.all([browser?.close(), pg?.close(), off?.close()])
})

/**
 * A test on a page of its own (the harness's `withPage`), failing when the page or the toolbar
 * threw uncaught: `body` gets the page, the suite's context and the page's console errors.
 */
function pageTest(
  name: string,
  body: (page: Page, context: Context, problems: string[]) => Promise<void>,
): void {
  test(name, (context) =>
    withPage(context.browser, async (page, problems) => {
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
      await body(page, context, problems)
      assert.equal(
        problems.filter((p) => p.startsWith('pageerror:')),
        [],
      )
    }),
  )
}

/** Opens a page and waits for its toolbar. */
async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await tab(page, 'client').waitFor()
}

/** Opens the home page, then fetches `/_demo/queries?n=3` (#2) and `/_demo/ping` (#3) from it. */
async function visitThreeRows(page: Page, url: string): Promise<void> {
  await visit(page, `${url}/`)
  await pageFetch(page, '/_demo/queries?n=3')
  await pageFetch(page, '/_demo/ping')
  await waitForRows(page, 3)
}

/**
 * A fetch the page makes: its status, the request id the server gave it and the query count of
 * the server's summary header.
 */
function pageFetch(
  page: Page,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; id: string | null; queries: number | undefined }> {
  return page.evaluate(
    async ({ url, headers }) => {
      const res = await fetch(url, { headers })
      await res.arrayBuffer()
      const summary = JSON.parse(res.headers.get('x-fw-debug') ?? '{}') as { queries?: number }
      return { status: res.status, id: res.headers.get('x-request-id'), queries: summary.queries }
    },
    { url, headers },
  )
}

interface XhrOptions {
  method?: string
  body?: string | null
  headers?: Record<string, string>
}

/** An XMLHttpRequest the page makes. */
function pageXhr(
  page: Page,
  url: string,
  { method = 'GET', body = null, headers = {} }: XhrOptions = {},
): Promise<{ status: number; id: string | null }> {
  return page.evaluate(
    ({ url, method, body, headers }) =>
      new Promise<{ status: number; id: string | null }>((resolve) => {
        const xhr = new XMLHttpRequest()
        xhr.open(method, url)
        for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v)
        xhr.onloadend = () =>
          resolve({ status: xhr.status, id: xhr.getResponseHeader('x-request-id') })
        xhr.send(body)
      }),
    { url, method, body, headers },
  )
}

interface RowInfo {
  n: number
  method: string
  path: string
  status: string
  failed: boolean
  selected: boolean
  own: boolean
  queries: string
  id: string
  log: string | null
}

/** The requests panel's rows, top to bottom (the panel must be open). */
function readRows(page: Page): Promise<RowInfo[]> {
  return page.evaluate(() =>
    Array.from(
      document.querySelector('fw-debugbar')?.shadowRoot?.querySelectorAll('tr[data-row]') ?? [],
      (tr) => {
        const td = tr.querySelectorAll('td')
        return {
          n: Number((tr as HTMLElement).dataset.row),
          method: td[1]?.textContent ?? '',
          path: tr.querySelector('button.pick')?.textContent ?? '',
          status: td[3]?.textContent ?? '',
          failed: tr.classList.contains('failed'),
          selected: tr.getAttribute('aria-selected') === 'true',
          own: td[2]?.querySelector('.count')?.textContent === 'this page',
          queries: td[5]?.textContent ?? '',
          id: (td[6]?.firstChild?.textContent ?? '').trim(),
          log: tr.querySelector('[data-log]')?.getAttribute('data-log') ?? null,
        }
      },
    ),
  )
}

/** The request count shown on the Requests tab. */
async function rowCount(page: Page): Promise<number> {
  return Number(await page.locator('fw-debugbar [data-tab="requests"] .count').textContent())
}

/** The selection chip's text, or null when nothing is selected. */
async function chip(page: Page): Promise<string | null> {
  const c = page.locator('fw-debugbar .chip')
  return (await c.count()) === 0 ? null : await c.textContent()
}

/**
 * Clicks `control` (a row's pick button, a timeline bar) and asserts that request `n` is then the
 * selected one: the chip says `label`, the control is pressed and the row is selected.
 */
async function select(page: Page, control: Locator, n: number, label: string): Promise<void> {
  await control.click()
  assert.is(await chip(page), label)
  assert.is(await control.getAttribute('aria-pressed'), 'true')
  const row = page.locator(`fw-debugbar tr[data-row="${n}"]`)
  assert.is(await row.getAttribute('aria-selected'), 'true')
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// 1 ─ Tabs ────────────────────────────────────────────────────────────────────────────────────

pageTest(
  'tabs appear only when the payload carries their data; Client is always there',
  async (page, { pg }) => {
    // A plain server-rendered page: no queries, no migrations, nothing thrown, nothing logged.
    await visit(page, `${pg.url}/`)
    const plain = await tabIds(page)
    for (const id of ['requests', 'route', 'views', 'client']) assert.ok(plain.includes(id), id)
    for (const id of ['sql', 'migrations', 'errors', 'exceptions', 'logs', 'domain'])
      assert.not.ok(plain.includes(id), `${id} on a plain page: ${plain.join(' ')}`)

    // A request that ran queries: SQL belongs to it, so it shows when that request is the one
    // viewed, and goes again with it.
    await pageFetch(page, '/_demo/queries?n=3')
    await waitForRows(page, 2)
    assert.not.ok((await tabIds(page)).includes('sql'), 'the page itself ran no query')
    await openTab(page, 'requests')
    await page.locator('fw-debugbar tr[data-row="2"] button.pick').click()
    await tab(page, 'sql').waitFor()
    assert.is(await tab(page, 'sql').locator('.count').textContent(), '3')
    await page.locator('fw-debugbar tr[data-row="2"] button.pick').click()
    await tab(page, 'sql').waitFor({ state: 'detached' })

    // Logs aggregate every request: the tab appears once some request logged a line.
    await pageFetch(page, '/_demo/log?message=tabs-test-line')
    await tab(page, 'logs').waitFor()
    // Domain: a measured service call, viewed by selecting its request.
    await pageFetch(page, '/_demo/measure')
    await waitForRows(page, 4)
    assert.not.ok((await tabIds(page)).includes('domain'))
    await page.locator('fw-debugbar tr[data-row="4"] button.pick').click()
    await tab(page, 'domain').waitFor()
    assert.not.ok((await tabIds(page)).includes('migrations'))
    assert.not.ok((await tabIds(page)).includes('errors'))

    // A page whose island holds nearly nothing: its own row, and Client.
    await page.route(`${pg.url}/__bare`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><html><body><p>bare</p><script type="application/json" id="fw-debug-data">{}</script><script src="/_fw/debugbar.js"></script></body></html>',
      }),
    )
    await visit(page, `${pg.url}/__bare`)
    assert.equal(await tabIds(page), ['requests', 'time', 'client'])
    // No island at all (and no settings): Client only.
    await page.route(`${pg.url}/__none`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><html><body><p>none</p><script src="/_fw/debugbar.js"></script></body></html>',
      }),
    )
    await visit(page, `${pg.url}/__none`)
    assert.equal(await tabIds(page), ['client'])
    await tab(page, 'client').click()
    await page.locator('fw-debugbar .panel[data-panel="client"]').waitFor()
  },
)

// 2 ─ Requests tab ────────────────────────────────────────────────────────────────────────────

pageTest(
  'lists every request the page made, its own included, newest first: fetch and XHR',
  async (page, { pg }) => {
    await visit(page, `${pg.url}/`)
    const ownId = await page.evaluate(
      () =>
        (
          JSON.parse(document.getElementById('fw-debug-data')!.textContent!) as {
            request: { id: string }
          }
        ).request.id,
    )
    const ping = await pageFetch(page, '/_demo/ping')
    const array = await pageXhr(page, '/_demo/array')
    const products = await pageFetch(page, '/api/v1/products?per_page=2', { apikey: API_KEY })
    const posted = await pageXhr(page, '/api/v1/products', {
      method: 'POST',
      body: '{"name":""}',
      headers: { apikey: API_KEY, 'content-type': 'application/json' },
    })
    assert.is(posted.status, 422)
    await waitForRows(page, 5)
    await openTab(page, 'requests')
    const rows = await readRows(page)
    assert.equal(
      rows.map((r) => [r.n, r.method, r.path, r.status, r.own]),
      [
        [5, 'POST', '/api/v1/products', '422', false],
        [4, 'GET', '/api/v1/products?per_page=2', '200', false],
        [3, 'GET', '/_demo/array', '200', false],
        [2, 'GET', '/_demo/ping', '200', false],
        [1, 'GET', '/', '200', true],
      ],
    )
    assert.equal(
      rows.map((r) => r.id),
      [posted.id, products.id, array.id, ping.id, ownId],
    )
    for (const id of [posted.id, products.id, array.id, ping.id, ownId])
      assert.match(String(id), /^[0-9a-f]{16}$/)
    assert.ok((products.queries ?? 0) >= 2, 'the list runs a count and a select')
    assert.is(rows[1]!.queries, String(products.queries))
  },
)

pageTest(
  "the /products page's table calls appear as rows, for a guest too",
  async (page, { pg }) => {
    await page.goto(`${pg.url}/products`)
    await page.locator('#product-status').filter({ hasText: 'of' }).waitFor()
    await waitForRows(page, 2)
    await openTab(page, 'requests')
    let rows = await readRows(page)
    assert.equal(rows.at(-1)!.path, '/products')
    assert.ok(rows.at(-1)!.own)
    assert.match(rows[0]!.path, /^\/products\/table\?draw=1&start=0&length=20/)
    assert.is(rows[0]!.status, '200')
    assert.ok(Number(rows[0]!.queries) >= 2, `queries: ${rows[0]!.queries}`)
    // Paging is one more call, on top (the open panel covers the pager: close it first).
    await tab(page, 'requests').click()
    await page.click('#product-next')
    await waitForRows(page, rows.length + 1)
    await openTab(page, 'requests')
    rows = await readRows(page)
    assert.match(rows[0]!.path, /^\/products\/table\?draw=2&start=20&length=20/)
  },
)

/** What the page sees of its own requests; run in a page with and without the toolbar. */
interface Seen {
  wrapped: { fetch: boolean; send: boolean }
  fetches: unknown[]
  xhrs: unknown[]
  reuse: unknown[]
  rejections: unknown[]
}

/**
 * `page.evaluate` for a function that declares named helpers: tsx compiles those with esbuild's
 * `keepNames`, whose `__name(fn, name)` calls must find a `__name` in the page. It is given as a
 * parameter here, so the page gets no global of ours.
 */
function evaluateNamed<A, R>(page: Page, fn: (arg: A) => Promise<R>, arg: A): Promise<R> {
  return page.evaluate(
    `((__name) => (${fn.toString()}))((f) => f)(${JSON.stringify(arg)})`,
  ) as Promise<R>
}

function probe(page: Page, closed: number): Promise<Seen> {
  return evaluateNamed(
    page,
    async (closed: number) => {
      // A JSON object without the server's own (varying) `_debug`; null for anything else.
      const object = (text: string): unknown => {
        try {
          const v = JSON.parse(text) as unknown
          if (v === null || typeof v !== 'object' || Array.isArray(v)) return null
          delete (v as { _debug?: unknown })._debug
          return v
        } catch {
          return null
        }
      }
      const headerNames = (names: string[]) =>
        names.filter((n) => n !== 'date' && n !== 'keep-alive').sort()
      const fetches: unknown[] = []
      const calls: [string, RequestInit?][] = [
        ['/_demo/array'],
        ['/_demo/text'],
        ['/_demo/empty'],
        ['/_demo/fragment'],
        ['/_demo/ping'],
        ['/_demo/queries?n=2'],
        [
          '/api/v1/products?per_page=3&order=id&fields=id,name,price',
          { headers: { apikey: 'demo-api-key' } },
        ],
        ['/_demo/nope', { headers: { accept: 'application/json' } }],
        ['/_demo/error', { headers: { accept: 'application/json' } }],
        [
          '/api/v1/products',
          {
            method: 'POST',
            headers: { apikey: 'demo-api-key', 'content-type': 'application/json' },
            body: JSON.stringify({ name: '', price: -1 }),
          },
        ],
      ]
      for (const [url, init] of calls) {
        const res = await fetch(url, init)
        const ok = res instanceof Response && !res.bodyUsed
        await new Promise((r) => setTimeout(r, 20))
        const stillUnread = !res.bodyUsed
        const bytes = new Uint8Array(await res.arrayBuffer())
        const text = new TextDecoder().decode(bytes)
        const obj = object(text)
        fetches.push({
          url,
          ok,
          stillUnread,
          status: res.status,
          statusText: res.statusText,
          redirected: res.redirected,
          type: res.type,
          responseUrl: res.url,
          contentType: res.headers.get('content-type'),
          cacheControl: res.headers.get('cache-control'),
          vary: res.headers.get('vary'),
          names: headerNames([...res.headers.keys()]),
          debug: res.headers.has('x-fw-debug') && res.headers.has('x-request-id'),
          body: obj ?? Array.from(bytes),
          length: obj === null ? res.headers.get('content-length') : 'object',
        })
      }
      // A Request object with a body: the wrapper reads a clone, the page's request still goes.
      {
        const res = await fetch(
          new Request('/_demo/queries?n=1', {
            method: 'POST',
            body: 'a=1&b[c]=2',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
        )
        fetches.push({ request: true, status: res.status, body: object(await res.text()) })
      }

      const xhr = (url: string, type: XMLHttpRequestResponseType, accept = '*/*') =>
        new Promise<unknown>((resolve) => {
          const x = new XMLHttpRequest()
          const events: string[] = []
          x.onreadystatechange = () => events.push(`state ${x.readyState}`)
          for (const e of ['loadstart', 'load', 'error', 'loadend'])
            x.addEventListener(e, () => events.push(e))
          x.open('GET', url)
          x.setRequestHeader('accept', accept)
          x.responseType = type
          x.onloadend = () => {
            const r: unknown = x.response
            resolve({
              url,
              type,
              events,
              readyState: x.readyState,
              status: x.status,
              statusText: x.statusText,
              responseURL: x.responseURL,
              contentType: x.getResponseHeader('content-type'),
              names: headerNames(
                x
                  .getAllResponseHeaders()
                  .trim()
                  .split(/\r\n/)
                  .filter((l) => l !== '')
                  .map((l) => l.slice(0, l.indexOf(':')).toLowerCase()),
              ),
              text:
                type === '' || type === 'text' ? (object(x.responseText) ?? x.responseText) : null,
              response:
                r instanceof ArrayBuffer
                  ? Array.from(new Uint8Array(r))
                  : r !== null && typeof r === 'object' && !Array.isArray(r)
                    ? object(JSON.stringify(r))
                    : typeof r === 'string'
                      ? (object(r) ?? r)
                      : r,
            })
          }
          x.send()
        })
      const xhrs: unknown[] = []
      for (const [url, type, accept] of [
        ['/_demo/array', '', undefined],
        ['/_demo/text', '', undefined],
        ['/_demo/empty', '', undefined],
        ['/_demo/ping', '', undefined],
        ['/_demo/nope', '', 'application/json'],
        ['/_demo/ping', 'json', undefined],
        ['/_demo/array', 'json', undefined],
        ['/_demo/text', 'arraybuffer', undefined],
        ['/_demo/text', 'text', undefined],
        [`http://127.0.0.1:${closed}/nothing`, '', undefined],
      ] as const)
        xhrs.push(await xhr(url, type, accept))

      // One XHR object reused (re-opened from its own loadend), re-opened in flight, sent twice;
      // synchronous requests, answered and failed.
      const reuse: unknown[] = []
      {
        const x = new XMLHttpRequest()
        const urls = ['/_demo/ping', '/_demo/array', '/_demo/text']
        const seen: unknown[] = []
        await new Promise<void>((resolve) => {
          let i = 0
          x.onloadend = () => {
            seen.push([x.status, object(x.responseText) ?? x.responseText])
            if (++i === urls.length) return resolve()
            x.open('GET', urls[i]!)
            x.send()
          }
          x.open('GET', urls[0]!)
          x.send()
        })
        reuse.push(seen)
      }
      {
        const x = new XMLHttpRequest()
        const events: string[] = []
        for (const e of ['readystatechange', 'abort', 'error', 'load', 'loadend'])
          x.addEventListener(e, () => events.push(`${e} ${x.readyState}`))
        x.open('GET', '/_demo/queries?n=1')
        x.send()
        x.open('GET', '/_demo/empty')
        await new Promise((resolve) => {
          x.addEventListener('loadend', resolve, { once: true })
          x.send()
        })
        reuse.push({ events, status: x.status })
      }
      {
        const x = new XMLHttpRequest()
        x.open('GET', '/_demo/text')
        const done = new Promise((resolve) => x.addEventListener('loadend', resolve))
        x.send()
        let threw: string | null = null
        try {
          x.send()
        } catch (error) {
          threw = (error as Error).name
        }
        await done
        reuse.push({ threw, status: x.status, text: x.responseText })
      }
      {
        const x = new XMLHttpRequest()
        x.open('GET', '/_demo/text', false)
        x.send()
        reuse.push({ sync: x.status, text: x.responseText })
        const y = new XMLHttpRequest()
        y.open('GET', `http://127.0.0.1:${closed}/nothing`, false)
        try {
          y.send()
          reuse.push({ sent: y.status })
        } catch (error) {
          reuse.push({ name: (error as Error).name, state: y.readyState, status: y.status })
        }
      }

      // Failures reject for the page exactly as before.
      const rejection = async (make: () => Promise<Response>) => {
        try {
          const res = await make()
          return { resolved: res.status }
        } catch (error) {
          return { name: (error as Error).name, message: (error as Error).message }
        }
      }
      const rejections = [
        await rejection(() => fetch(`http://127.0.0.1:${closed}/nothing`)),
        await rejection(() => {
          const c = new AbortController()
          const p = fetch('/_demo/ping', { signal: c.signal })
          c.abort()
          return p
        }),
        await rejection(() => fetch('/_demo/ping', { method: 'GET', body: 'x' })),
        await rejection(() => fetch('http://[not a host')),
      ]
      return {
        wrapped: {
          fetch: !String(window.fetch).includes('[native code]'),
          send: !String(XMLHttpRequest.prototype.send).includes('[native code]'),
        },
        fetches,
        xhrs,
        reuse,
        rejections,
      }
    },
    closed,
  )
}

pageTest(
  "the page's own fetch and XHR results are identical with and without the toolbar",
  async (page, { pg, closed }) => {
    // The same origin, a page the framework never saw: no toolbar.
    await page.route(`${pg.url}/__plain`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><html><body><p>plain</p></body></html>',
      }),
    )
    await page.goto(`${pg.url}/__plain`)
    const without = await probe(page, closed)
    assert.equal(without.wrapped, { fetch: false, send: false })
    assert.is(await page.locator('fw-debugbar').count(), 0)

    await visit(page, `${pg.url}/`)
    const withBar = await probe(page, closed)
    assert.equal(withBar.wrapped, { fetch: true, send: true })

    // A development error's stack trace is the server's own state (a synchronous route runs in the
    // request scope until it has answered once without waiting), not something the toolbar sends.
    const untraced = (x: unknown): unknown =>
      JSON.parse(
        JSON.stringify(x ?? null, (key, value: unknown) => (key === 'trace' ? undefined : value)),
      )
    const same = (a: unknown[], b: unknown[], what: string) => {
      assert.is(a.length, b.length, what)
      a.forEach((x, i) => assert.equal(untraced(x), untraced(b[i]), `${what} #${i + 1}`))
    }
    same(withBar.fetches, without.fetches, 'fetch')
    same(withBar.xhrs, without.xhrs, 'XHR')
    same(withBar.reuse, without.reuse, 'reused or synchronous XHR')
    same(withBar.rejections, without.rejections, 'rejection')

    // The comparison compares something: bodies, statuses and failures as the server sent them.
    const f = without.fetches as { url: string; status: number; body: unknown; ok: boolean }[]
    assert.ok(f.every((x) => x.ok !== false))
    assert.equal(
      f.map((x) => x.status),
      [200, 200, 204, 200, 200, 200, 200, 404, 500, 422, 405],
    )
    assert.equal(
      new TextDecoder().decode(new Uint8Array(f[1]!.body as number[])),
      'Hello from the fw playground.\n',
    )
    assert.equal(JSON.parse(new TextDecoder().decode(new Uint8Array(f[0]!.body as number[]))), [
      { id: 1, name: 'alpha' },
      { id: 2, name: 'beta' },
      { id: 3, name: 'gamma' },
    ])
    assert.equal(f[2]!.body, [])
    assert.equal(f[4]!.body, { hello: 'world', n: 1 })
    const x = without.xhrs as { status: number; readyState: number; events: string[] }[]
    assert.equal(
      x.map((r) => [r.status, r.readyState]),
      [
        [200, 4],
        [200, 4],
        [204, 4],
        [200, 4],
        [404, 4],
        [200, 4],
        [200, 4],
        [200, 4],
        [200, 4],
        [0, 4],
      ],
    )
    assert.ok(x.at(-1)!.events.includes('error'))
    const r = without.rejections as { name?: string }[]
    assert.equal(
      r.map((e) => e.name),
      ['TypeError', 'AbortError', 'TypeError', 'TypeError'],
    )

    // The toolbar recorded them all (its reads went through clones): one row per request.
    await openTab(page, 'requests')
    const rows = await readRows(page)
    const queries = rows.find((row) => row.path === '/_demo/queries?n=2')
    assert.is(queries?.queries, '2', 'the toolbar read the payload from a clone')
    assert.ok(rows.some((row) => row.method === 'POST' && row.path === '/_demo/queries?n=1'))
    // No status: the XHRs to the closed port (one asynchronous, one synchronous), the one
    // cancelled by a new open(), and the four rejected fetches.
    assert.is(rows.filter((row) => row.status.startsWith('failed')).length, 3 + 4)
  },
)

pageTest(
  'one row per request of a reused or synchronous XHR; paths resolve against <base href>',
  async (page, { pg, closed }) => {
    await visit(page, `${pg.url}/`)
    await evaluateNamed(
      page,
      async (closed: number) => {
        const load = (x: XMLHttpRequest) =>
          new Promise((resolve) => x.addEventListener('loadend', resolve, { once: true }))
        // Reused: the next open() runs from the page's own loadend handler.
        const x = new XMLHttpRequest()
        await new Promise<void>((resolve) => {
          const urls = ['/_demo/ping', '/_demo/queries?n=2', '/_demo/text']
          let i = 0
          x.onloadend = () => {
            if (++i === urls.length) return resolve()
            x.open('GET', urls[i]!)
            x.send()
          }
          x.open('GET', urls[0]!)
          x.send()
        })
        x.onloadend = null
        // Re-opened while in flight, then sent again.
        x.open('GET', '/_demo/queries?n=1')
        x.send()
        x.open('GET', '/_demo/empty')
        const empty = load(x)
        x.send()
        await empty
        // Sent twice: the second send() throws and must not disturb the first.
        x.open('GET', '/_demo/array')
        const array = load(x)
        x.send()
        try {
          x.send()
        } catch {
          // InvalidStateError, as without the toolbar
        }
        await array
        // Synchronous: answered, and failed (it throws without firing events).
        x.open('GET', '/_demo/ping?sync=1', false)
        x.send()
        x.open('GET', `http://127.0.0.1:${closed}/sync`, false)
        try {
          x.send()
        } catch {
          // NetworkError
        }
        // Relative URLs with a <base href>: fetch and XHR both go to /_demo/…
        const base = document.createElement('base')
        base.href = '/_demo/'
        document.head.append(base)
        await (await fetch('ping?base=1')).text()
        x.open('GET', 'text?base=1')
        const text = load(x)
        x.send()
        await text
      },
      closed,
    )
    await waitForRows(page, 11)
    await sleep(100)
    await openTab(page, 'requests')
    const rows = (await readRows(page)).reverse()
    assert.equal(
      rows.map((r) => [r.n, r.path, r.status.replace(/ \(.*/, ''), r.queries]),
      [
        [1, '/', '200', '0'],
        [2, '/_demo/ping', '200', '0'],
        [3, '/_demo/queries?n=2', '200', '2'],
        [4, '/_demo/text', '200', ''],
        [5, '/_demo/queries?n=1', 'failed', ''],
        [6, '/_demo/empty', '204', ''],
        [7, '/_demo/array', '200', ''],
        [8, '/_demo/ping?sync=1', '200', '0'],
        [9, `http://127.0.0.1:${closed}/sync`, 'failed', ''],
        [10, '/_demo/ping?base=1', '200', '0'],
        [11, '/_demo/text?base=1', '200', ''],
      ],
    )
    assert.match(rows[4]!.status, /cancelled by a new open\(\)/)
    // Each row carries its own request's id: no row reports another request's answer.
    const ids = rows.map((r) => r.id).filter((id) => id !== '')
    assert.is(new Set(ids).size, ids.length)
    assert.is(ids.length, 9)
  },
)

pageTest('a wrapped fetch resolves to a Response the page can still read', async (page, { pg }) => {
  await visit(page, `${pg.url}/`)
  const seen = await page.evaluate(async () => {
    const promise = fetch('/_demo/queries?n=2')
    const isPromise = promise instanceof Promise
    const res = await promise
    // Give the toolbar every chance to read what it reads.
    await new Promise((r) => setTimeout(r, 100))
    const unread = !res.bodyUsed
    const body = (await res.json()) as { _debug?: { queries?: { count?: number } } }
    const xhr = await new Promise<{ state: number; status: number; text: string }>((resolve) => {
      const x = new XMLHttpRequest()
      x.open('GET', '/_demo/text')
      x.onload = () => resolve({ state: x.readyState, status: x.status, text: x.responseText })
      x.send()
    })
    return { isPromise, unread, count: body._debug?.queries?.count, xhr }
  })
  assert.equal(seen, {
    isPromise: true,
    unread: true,
    count: 2,
    xhr: { state: 4, status: 200, text: 'Hello from the fw playground.\n' },
  })
  await waitForRows(page, 3)
})

// 3 ─ Selection ───────────────────────────────────────────────────────────────────────────────

pageTest(
  'clicking a request switches the other tabs to it; again, or its chip, releases',
  async (page, { pg }) => {
    // Default on a server-rendered page: the page's own request, even after newer ones.
    await visitThreeRows(page, pg.url)
    const route = async () => {
      const panel = await openTab(page, 'route')
      return (await panel.textContent()) ?? ''
    }
    let text = await route()
    assert.match(text, /#1 GET \//)
    assert.match(text, /home/)
    assert.is(await chip(page), null)

    // Select #2: Route and SQL follow it.
    await openTab(page, 'requests')
    const pick = page.locator('fw-debugbar tr[data-row="2"] button.pick')
    await select(page, pick, 2, '#2 GET /_demo/queries?n=3 ×')
    text = await route()
    assert.match(text, /#2 GET \/_demo\/queries\?n=3/)
    assert.match(text, /demo\.queries/)
    const sql = await openTab(page, 'sql')
    assert.is(await sql.locator('table.sql tbody tr').count(), 3)
    assert.match((await sql.textContent()) ?? '', /#2 GET \/_demo\/queries/)

    // Clicking it again releases: back to the page's own request, SQL gone.
    await openTab(page, 'requests')
    await pick.click()
    assert.is(await chip(page), null)
    assert.not.ok((await tabIds(page)).includes('sql'))
    assert.match(await route(), /#1 GET \//)

    // Select #3, then release through the chip.
    await openTab(page, 'requests')
    await page.locator('fw-debugbar tr[data-row="3"] button.pick').click()
    assert.match(await route(), /#3 GET \/_demo\/ping/)
    assert.is(await chip(page), '#3 GET /_demo/ping ×')
    await page.locator('fw-debugbar .chip').click()
    assert.is(await chip(page), null)
    assert.match(await route(), /#1 GET \//)
  },
)

pageTest(
  'the whole row selects: its status, time, queries or id cell; the log button keeps its action',
  async (page, { pg }) => {
    await visitThreeRows(page, pg.url)
    await openTab(page, 'requests')
    const row = (n: number) => page.locator(`fw-debugbar tr[data-row="${n}"]`)
    // Cells 4 to 7: status, time, queries, request id (the id text, not its log button).
    for (const cell of [4, 5, 6]) {
      await row(2).locator(`td:nth-child(${cell})`).click()
      assert.is(await row(2).getAttribute('aria-selected'), 'true', `cell ${cell} selects`)
      assert.is(await chip(page), '#2 GET /_demo/queries?n=3 ×')
      await row(2).locator(`td:nth-child(${cell})`).click()
      assert.is(await chip(page), null, `cell ${cell} again releases`)
    }
    await row(3)
      .locator('td:nth-child(7)')
      .click({ position: { x: 4, y: 4 } })
    assert.is(await chip(page), '#3 GET /_demo/ping ×')
    assert.is(await row(3).getAttribute('aria-selected'), 'true')
    // The path button still selects (keyboard users), once, not twice through the row.
    await row(2).locator('button.pick').click()
    assert.is(await chip(page), '#2 GET /_demo/queries?n=3 ×')
    // The server-log button asks for the log and leaves the selection as it was.
    const logButton = row(3).locator('[data-log]')
    if ((await logButton.count()) > 0) {
      await logButton.click()
      assert.is(await chip(page), '#2 GET /_demo/queries?n=3 ×')
    }
  },
)

// 4 ─ Failed rows ─────────────────────────────────────────────────────────────────────────────

pageTest(
  'failed rows are red: 4xx, 5xx, no status, a 200 that raised; rows without debug data too',
  async (page, { pg, closed }) => {
    // A same-origin JSON response the framework never saw: no header, no `_debug`.
    await page.route(`${pg.url}/__undebugged.json`, (route) =>
      route.fulfill({ contentType: 'application/json', body: '{"plain":true}' }),
    )
    await visit(page, `${pg.url}/`)
    const json = { accept: 'application/json' }
    assert.is((await pageFetch(page, '/_demo/nope', json)).status, 404)
    assert.is((await pageXhr(page, '/_demo/nope', { headers: json })).status, 404)
    assert.is((await pageFetch(page, '/_demo/error', json)).status, 500)
    assert.is((await pageFetch(page, '/_demo/error?recover=1', json)).status, 200)
    const failure = await page.evaluate(
      (url) =>
        fetch(url).then(
          () => 'resolved',
          (e: Error) => e.name,
        ),
      `http://127.0.0.1:${closed}/nothing`,
    )
    assert.is(failure, 'TypeError')
    assert.is((await pageXhr(page, `http://127.0.0.1:${closed}/nothing`)).status, 0)
    assert.is((await pageFetch(page, '/_demo/text')).status, 200)
    assert.is((await pageFetch(page, '/__undebugged.json')).status, 200)
    assert.is((await pageFetch(page, '/_demo/ping')).status, 200)
    await waitForRows(page, 10)
    await openTab(page, 'requests')
    const rows = await readRows(page)
    const byN = (n: number) => rows.find((r) => r.n === n)!
    const expected: [number, string, RegExp, boolean][] = [
      [1, '/', /^200$/, false],
      [2, '/_demo/nope', /^404$/, true],
      [3, '/_demo/nope', /^404$/, true],
      [4, '/_demo/error', /^500$/, true],
      [5, '/_demo/error?recover=1', /^200$/, true],
      [6, `http://127.0.0.1:${closed}/nothing`, /^failed \(.+\)$/, true],
      [7, `http://127.0.0.1:${closed}/nothing`, /^failed \(.+\)$/, true],
      [8, '/_demo/text', /^200$/, false],
      [9, '/__undebugged.json', /^200$/, false],
      [10, '/_demo/ping', /^200$/, false],
    ]
    for (const [n, path, status, failed] of expected) {
      const row = byN(n)
      assert.is(row.path, path, `#${n}`)
      assert.match(row.status, status, `#${n} ${row.status}`)
      assert.is(row.failed, failed, `#${n} ${path} failed`)
    }
    // Rows without debug data: no id, no queries, no log button.
    for (const n of [6, 7, 9]) {
      assert.is(byN(n).id, '', `#${n}`)
      assert.is(byN(n).log, null, `#${n}`)
    }
    // The plain-text answer carries the summary header only: an id, no payload.
    assert.match(byN(8).id, /^[0-9a-f]{16}$/)
    // The timeline's bars and the tab say so too.
    const bars = await page.evaluate(() =>
      Array.from(
        document.querySelector('fw-debugbar')!.shadowRoot!.querySelectorAll('[data-bar]'),
        (b) => [Number((b as HTMLElement).dataset.bar), b.classList.contains('failed')],
      ),
    )
    assert.equal(
      bars,
      expected.map(([n, , , failed]) => [n, failed]),
    )
    assert.match((await tab(page, 'requests').getAttribute('class')) ?? '', /\balert\b/)
    // The 200 that raised: its Exceptions entry is there when it is selected.
    await page.locator('fw-debugbar tr[data-row="5"] button.pick').click()
    const ex = await openTab(page, 'exceptions')
    assert.match((await ex.textContent()) ?? '', /threw on purpose/)
  },
)

// 5 ─ Timeline ────────────────────────────────────────────────────────────────────────────────

pageTest(
  'timeline: one axis, oldest first; clicking a bar picks the request',
  async (page, { pg }) => {
    await visit(page, `${pg.url}/`)
    for (const url of ['/_demo/ping', '/_demo/queries?n=5', '/_demo/text']) {
      await sleep(30)
      await pageFetch(page, url)
    }
    await waitForRows(page, 4)
    await openTab(page, 'requests')
    const geometry = await page.evaluate(() => {
      const root = document.querySelector('fw-debugbar')!.shadowRoot!
      const axis = root.querySelector('[data-timeline]')!.getBoundingClientRect()
      return Array.from(root.querySelectorAll('[data-bar]'), (b) => {
        const el = b as HTMLElement
        const r = el.getBoundingClientRect()
        return {
          n: Number(el.dataset.bar),
          left: parseFloat(el.style.left),
          width: parseFloat(el.style.width),
          x: r.left - axis.left,
          right: r.right - axis.left,
          axis: axis.width,
        }
      })
    })
    assert.equal(
      geometry.map((g) => g.n),
      [1, 2, 3, 4],
      'oldest first',
    )
    assert.is(geometry[0]!.left, 0, 'the oldest starts the axis')
    for (let i = 1; i < geometry.length; i++) {
      assert.ok(geometry[i]!.left > geometry[i - 1]!.left, `bar ${i + 1} starts later`)
      assert.ok(geometry[i]!.x > geometry[i - 1]!.x, `bar ${i + 1} drawn further right`)
      // Each request started after the previous one ended (they were awaited one by one).
      assert.ok(geometry[i]!.left >= geometry[i - 1]!.left + geometry[i - 1]!.width - 0.5)
    }
    const last = geometry.at(-1)!
    assert.ok(last.left + last.width <= 100.5 && last.left + last.width >= 99.5, 'one axis')

    const bar = page.locator('fw-debugbar [data-bar="3"]')
    await select(page, bar, 3, '#3 GET /_demo/queries?n=5 ×')
    assert.is(await tab(page, 'sql').locator('.count').textContent(), '5')
    await bar.click()
    assert.is(await chip(page), null)
    assert.is(await bar.getAttribute('aria-pressed'), 'false')

    // Overlapping requests finishing out of order: a slow one started first (the network delays
    // it by 300 ms on its way to the server), a quick one just after. Rows are numbered as they
    // finish; the timeline still draws them by start.
    await page.route(`${pg.url}/_demo/queries?n=200`, async (route) => {
      await sleep(300)
      await route.continue()
    })
    await page.evaluate(async () => {
      const slow = fetch('/_demo/queries?n=200').then((r) => r.text())
      await new Promise((r) => setTimeout(r, 5))
      await Promise.all([slow, fetch('/_demo/ping').then((r) => r.text())])
    })
    await waitForRows(page, 6)
    const rows = await readRows(page)
    const nSlow = rows.find((r) => r.path === '/_demo/queries?n=200')!.n
    const nQuick = rows.find((r) => r.path === '/_demo/ping' && r.n > 4)!.n
    assert.equal([nQuick, nSlow], [5, 6], 'the quick one finished first')
    const order = await page.evaluate(() =>
      Array.from(
        document.querySelector('fw-debugbar')!.shadowRoot!.querySelectorAll('[data-bar]'),
        (b) => [Number((b as HTMLElement).dataset.bar), parseFloat((b as HTMLElement).style.left)],
      ),
    )
    assert.equal(
      order.map(([n]) => n),
      [1, 2, 3, 4, nSlow, nQuick],
      'oldest first: by start',
    )
    for (let i = 1; i < order.length; i++) assert.ok(order[i]![1]! >= order[i - 1]![1]!)
    // The overlap is drawn: the quick bar starts before the slow one ends.
    const slowBar = await page.locator(`fw-debugbar [data-bar="${nSlow}"]`).boundingBox()
    const quickBar = await page.locator(`fw-debugbar [data-bar="${nQuick}"]`).boundingBox()
    assert.ok(quickBar!.x < slowBar!.x + slowBar!.width)
    assert.ok(quickBar!.x >= slowBar!.x)
  },
)

// 6 ─ Server log button ───────────────────────────────────────────────────────────────────────

/** Waits until the log file holds a line of request `id` (lines are written asynchronously). */
async function loggedLine(file: string, id: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (existsSync(file) && readFileSync(file, 'utf8').includes(`"request":"${id}"`)) return
    await sleep(20)
  }
  throw new Error(`no log line of ${id} in ${file}`)
}

pageTest(
  'server log button: asks the dev panel through the unwrapped fetch and shows the lines',
  async (page, { pg }) => {
    // The dev panel answers a user of usertype >= 90 (or a grant holder).
    await signIn(page, pg.url, '/')
    await tab(page, 'client').waitFor()
    const message = `browser-log-${Date.now().toString(36)}`
    const logged = await pageFetch(page, `/_demo/log?message=${message}`)
    const id = logged.id!
    assert.match(id, /^[0-9a-f]{16}$/)
    await loggedLine(pg.logFile, id)
    await waitForRows(page, 2)
    await openTab(page, 'requests')
    const rows = await readRows(page)
    assert.equal(
      rows.map((r) => r.log),
      rows.map((r) => r.id),
      'every row with an id has a button',
    )
    const before = await rowCount(page)
    const asked: string[] = []
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (u.pathname !== '/favicon.ico') asked.push(u.pathname + u.search)
    })
    await page.locator(`fw-debugbar [data-log="${id}"]`).click()
    const section = page.locator(`fw-debugbar [data-serverlog="${id}"]`)
    await section.filter({ hasText: message }).waitFor()
    assert.match((await section.textContent()) ?? '', /info/)
    assert.equal(asked, [`/devpanel/logs?request=${id}`])
    await sleep(100)
    assert.is(await rowCount(page), before, 'no row for the toolbar’s own call')
    assert.not.ok((await readRows(page)).some((r) => r.path.startsWith('/devpanel')))
  },
)

pageTest(
  'server log button: none for a guest, whom the dev panel answers 403, nor without the panel',
  async (page, { pg, off }) => {
    const asked: string[] = []
    page.on('request', (r) => {
      if (r.url().includes('/devpanel/')) asked.push(r.url())
    })
    await visit(page, `${pg.url}/`)
    await pageFetch(page, '/_demo/ping')
    await waitForRows(page, 2)
    await openTab(page, 'requests')
    const rows = await readRows(page)
    assert.ok(
      rows.every((r) => r.id !== null),
      'every row has a request id',
    )
    assert.is(await page.locator('fw-debugbar [data-log]').count(), 0, 'no button for a guest')
    // What a button would have asked for answers the guest 403.
    const status = await page.evaluate(
      async (id) => (await fetch(`/devpanel/logs?request=${id}`)).status,
      rows[0]!.id!,
    )
    assert.is(status, 403)
    assert.is(asked.length, 1, 'only the check above asked the dev panel')
    // Without the DevPanel feature there is nothing to open, for anyone.
    await visit(page, `${off.url}/`)
    await pageFetch(page, '/_demo/ping')
    await waitForRows(page, 2)
    await openTab(page, 'requests')
    assert.is(await page.locator('fw-debugbar [data-log]').count(), 0, 'no dev panel: no button')
  },
)

// 7 ─ Screenshots ─────────────────────────────────────────────────────────────────────────────

pageTest('screenshots of the open bar: requests, SQL, Auth', async (page, { pg }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await signIn(page, pg.url, '/products')
  await page.locator('#product-status').filter({ hasText: 'of' }).waitFor()
  await waitForRows(page, 2)
  // The table's call (row 2) ran the list's statements; the page's own request may have found
  // the session in the token cache and run none.
  await openTab(page, 'requests')
  await page.locator('fw-debugbar tr[data-row="2"] button.pick').click()
  await page.locator('fw-debugbar .chip').waitFor()
  for (const [id, name] of [
    ['requests', 'requests'],
    ['sql', 'sql'],
    ['auth', 'auth'],
  ] as const) {
    await openTab(page, id)
    await screenshot(page, name)
    const file = join(SCREENSHOTS, `${name}.png`)
    assert.ok(statSync(file).size > 5000, file)
  }
})

test.run()
