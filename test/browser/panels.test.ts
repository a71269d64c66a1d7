// The toolbar's panels in Chromium against the real playground: one test per behaviour listed in
// plugins/debug/README.md "The browser toolbar" for Logs/Exceptions, Auth, the request body, Time,
// the Exceptions tab, Domain and API, plus the Route, Session, Views and Migrations tabs.
import * as assert from 'uvu/assert'
import type { Locator, Page, Request } from 'playwright-core'
import {
  browserSuite,
  screenshot,
  signIn,
  startPlayground,
  withPage,
  type BrowserSuite,
} from './harness.js'
import { openTab, tab, tabIds, waitForRows } from './toolbar.js'

/** Access tokens live this long, so the Auth test can watch one expire. */
const TOKEN_TTL = 3
const API_KEY = 'demo-api-key'
/** A JWT-shaped value under a harmless key: masked by its look. */
const JWT_LIKE = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVlLXgx'

/** The playground with its logging plugin (the Logs tab needs real lines); tokens expire fast. */
const test = browserSuite('browser: toolbar panels', () =>
  startPlayground(
    { FW_CONFIG: JSON.stringify({ auth: { token_ttl: TOKEN_TTL } }) },
    { logging: true },
  ),
)

// ---------------------------------------------------------------------------------------------
// helpers

interface CallInit {
  method?: string
  headers?: Record<string, string>
  body?: string
}

/** How many rows the requests tab counts. */
const rowCount = (page: Page): Promise<number> =>
  page.evaluate(() =>
    Number(
      document
        .querySelector('fw-debugbar')
        ?.shadowRoot?.querySelector('[data-tab="requests"] .count')?.textContent ?? 0,
    ),
  )

/**
 * A `fetch` made by the page itself (so the toolbar's wrapper records it); waits for its row, so
 * rows are numbered in the order of the calls. Answers the status.
 */
async function call(page: Page, url: string, init: CallInit = {}): Promise<number> {
  const before = await rowCount(page)
  const status = await page.evaluate(
    async ({ url, init }) => {
      const res = await fetch(url, init)
      await res.arrayBuffer()
      return res.status
    },
    { url, init },
  )
  await waitForRows(page, before + 1)
  return status
}

const json = { accept: 'application/json' }
const exact = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
const inBar = (page: Page, selector: string) => page.locator(`fw-debugbar ${selector}`)
const panelOf = (page: Page, id: string) => inBar(page, `.panel[data-panel="${id}"]`)

/** The number of the request row whose path is `path` (opens the requests tab). */
async function rowFor(page: Page, path: string): Promise<number> {
  await openTab(page, 'requests')
  const row = inBar(page, 'tr[data-row]').filter({
    has: page.locator('button.pick', { hasText: exact(path) }),
  })
  await row.waitFor()
  return Number(await row.getAttribute('data-row'))
}

/** Selects the row of `path` (clicking its path), answers its number. */
async function select(page: Page, path: string): Promise<number> {
  const n = await rowFor(page, path)
  await inBar(page, `tr[data-row="${n}"] button.pick`).click()
  await inBar(page, '.chip').waitFor()
  assert.is(await inBar(page, `tr[data-row="${n}"]`).getAttribute('aria-selected'), 'true')
  return n
}

/** Releases the selection through its chip. */
async function release(page: Page): Promise<void> {
  await inBar(page, '.chip').click()
  await inBar(page, '.chip').waitFor({ state: 'detached' })
}

/** The text of every cell, row by row, of the rows `selector` names (a folded cell: its summary). */
function cells(page: Page, selector: string): Promise<string[][]> {
  return inBar(page, selector).evaluateAll((rows) =>
    rows.map((r) =>
      Array.from(r.querySelectorAll('th, td'), (c) =>
        (c.querySelector(':scope > details > summary') ?? c).textContent!.trim(),
      ),
    ),
  )
}

/** A locator's text, `''` when it has none. */
const textOf = async (l: Locator): Promise<string> => (await l.textContent()) ?? ''

/** The label → value pairs of the `dl` in the panel of `id`. */
function pairs(page: Page, id: string): Promise<Record<string, string>> {
  return panelOf(page, id)
    .locator('dl.kv')
    .evaluate((dl) => {
      const out: Record<string, string> = {}
      for (const dt of dl.querySelectorAll('dt'))
        out[dt.textContent!] = (dt.nextElementSibling as HTMLElement).textContent!
      return out
    })
}

/** `1,204 ms` → 1204. */
const msOf = (text: string): number => Number(text.replace(/ ms$/, '').replace(/,/g, ''))
/** Half the display step of `ms()` in the toolbar (2 decimals below 10, 1 below 100, else 0). */
const halfStep = (v: number): number => (v < 10 ? 0.005 : v < 100 ? 0.05 : 0.5)

/**
 * A test on a page of its own (the harness's `withPage`, waiting at most 10 s for anything): `body`
 * gets the page, the suite's context and the page's console errors.
 */
function pageTest(
  name: string,
  body: (page: Page, context: BrowserSuite, problems: string[]) => Promise<void>,
): void {
  test(name, (context) =>
    withPage(context.browser, (page, problems) => body(page, context, problems), {
      timeout: 10_000,
    }),
  )
}

/** Opens the playground's home page and waits for the toolbar's row of it. */
async function home(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`)
  await waitForRows(page, 1)
}

/**
 * Opens the home page, then its API tab once the document is read: the panel, its operations in
 * order, and `send(status)`, which sends the request and waits for a reply of that status.
 */
async function apiTab(page: Page, url: string) {
  await home(page, url)
  const api = await openTab(page, 'api')
  await api.locator('[data-api]').waitFor()
  const ops = await api
    .locator('button[data-op]')
    .evaluateAll((b) => b.map((x) => x.getAttribute('data-op')))
  const send = async (status: number): Promise<void> => {
    await api.locator('button[type="submit"]').click()
    await api.locator('h3', { hasText: `Reply: ${status}` }).waitFor()
  }
  return { api, ops, send }
}

// ---------------------------------------------------------------------------------------------
// Logs, Exceptions

pageTest(
  'Logs and Exceptions aggregate every request with a request column until one is selected',
  async (page, { pg }, problems) => {
    await home(page, pg.url)
    assert.equal(await tabIds(page).then((t) => t.includes('logs')), false, 'no log line yet')
    assert.is(await call(page, '/_demo/log?message=first-line', { headers: json }), 200)
    assert.is(await call(page, '/_demo/log?message=second-line', { headers: json }), 200)
    assert.is(await call(page, '/_demo/error', { headers: json }), 500)
    const first = await rowFor(page, '/_demo/log?message=first-line')
    const second = await rowFor(page, '/_demo/log?message=second-line')
    const failing = await rowFor(page, '/_demo/error')

    // Aggregated: every request's lines, a column naming the request.
    await openTab(page, 'logs')
    assert.equal(await cells(page, 'table.logs thead tr'), [['Request', 'Level', 'Message']])
    const all = await cells(page, 'table.logs tbody tr')
    assert.equal(all.length, 3, JSON.stringify(all))
    assert.equal(all[0], [`#${first} GET /_demo/log?message=first-line`, 'info', 'first-line'])
    assert.equal(all[1], [`#${second} GET /_demo/log?message=second-line`, 'info', 'second-line'])
    assert.equal(all[2]!.slice(0, 2), [`#${failing} GET /_demo/error`, 'error'])
    assert.match(all[2]![2]!, /^request failed/)
    assert.is(await tab(page, 'logs').locator('.count').textContent(), '3')

    await openTab(page, 'exceptions')
    assert.equal(await cells(page, 'table.exceptions thead tr'), [
      ['Request', 'Exception', 'Message', 'Status'],
    ])
    assert.equal(await cells(page, 'table.exceptions tbody tr'), [
      [
        `#${failing} GET /_demo/error`,
        'Error',
        'The handler of /_demo/error threw on purpose.',
        '500',
      ],
    ])

    // Narrowed to the selected request: no request column, a note naming it.
    await select(page, '/_demo/log?message=second-line')
    await openTab(page, 'logs')
    assert.equal(await cells(page, 'table.logs thead tr'), [['Level', 'Message']])
    assert.equal(await cells(page, 'table.logs tbody tr'), [['info', 'second-line']])
    assert.is(
      await panelOf(page, 'logs').locator('p.note').first().textContent(),
      `#${second} GET /_demo/log?message=second-line`,
    )
    await openTab(page, 'exceptions')
    assert.is(await inBar(page, 'table.exceptions').count(), 0)
    assert.match(await textOf(panelOf(page, 'exceptions')), 'The selected request raised nothing.')

    await select(page, '/_demo/error')
    await openTab(page, 'exceptions')
    assert.equal(await cells(page, 'table.exceptions tbody tr'), [
      ['Error', 'The handler of /_demo/error threw on purpose.', '500'],
    ])
    await openTab(page, 'logs')
    const narrowed = await cells(page, 'table.logs tbody tr')
    assert.is(narrowed.length, 1)
    assert.is(narrowed[0]![0], 'error')

    // Released: aggregated again.
    await release(page)
    await openTab(page, 'logs')
    assert.is((await cells(page, 'table.logs tbody tr')).length, 3)
    assert.equal(await cells(page, 'table.logs thead tr'), [['Request', 'Level', 'Message']])
    assert.equal(
      problems.filter((p) => !p.startsWith('Failed to load resource')),
      [],
      'nothing but the failed responses on the console',
    )
  },
)

// ---------------------------------------------------------------------------------------------
// Auth

pageTest(
  'Auth follows the newest request unless one is selected, and turns red at expiry',
  async (page, { pg }) => {
    // The page's own request: the editor's web session.
    await signIn(page, pg.url, '/', 'editor', 'editor-pass')
    await waitForRows(page, 1)
    assert.is(await tab(page, 'auth').locator('.count').textContent(), 'editor')

    // A token login and a bearer call as admin: Auth follows the newest.
    const status = await page.evaluate(async (apikey) => {
      const login = await fetch('/account/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'admin-pass' }),
      })
      const { access_token } = (await login.json()) as { access_token: string }
      const me = await fetch('/api/v1/me', {
        headers: { authorization: `Bearer ${access_token}`, accept: 'application/json', apikey },
      })
      await me.arrayBuffer()
      return me.status
    }, API_KEY)
    assert.is(status, 200)
    await waitForRows(page, 3)
    const me = await rowFor(page, '/api/v1/me')
    const own = await rowFor(page, '/')
    await page.waitForFunction(
      () =>
        document.querySelector('fw-debugbar')?.shadowRoot?.querySelector('[data-tab="auth"] .count')
          ?.textContent === 'admin',
    )
    const auth = await openTab(page, 'auth')
    assert.is(await auth.locator('p.note').first().textContent(), `#${me} GET /api/v1/me`)
    const newest = await pairs(page, 'auth')
    assert.is(newest.Who, 'admin (id 1, type 100)')
    assert.is(newest.Credential, 'accessToken')
    assert.is(newest.From, 'Authorization')
    assert.not.match(
      (await tab(page, 'auth').getAttribute('class')) ?? '',
      /\balert\b/,
      'not expired yet',
    )
    assert.is(await auth.locator('[data-expiry]').getAttribute('class'), '')

    // Selected: the older request's identity.
    await select(page, '/')
    await openTab(page, 'auth')
    assert.is(await tab(page, 'auth').locator('.count').textContent(), 'editor')
    assert.is(await auth.locator('p.note').first().textContent(), `#${own} GET /`)
    const older = await pairs(page, 'auth')
    assert.is(older.Who, 'editor (id 2, type 50)')
    assert.is(older.Credential, 'session')

    // Released: the newest again; then, untouched, red once the token's expiry has passed.
    await release(page)
    assert.is(await tab(page, 'auth').locator('.count').textContent(), 'admin')
    await page.waitForFunction(
      () =>
        document
          .querySelector('fw-debugbar')
          ?.shadowRoot?.querySelector('[data-tab="auth"]')
          ?.classList.contains('alert') === true,
      undefined,
      { timeout: (TOKEN_TTL + 3) * 1000 },
    )
    assert.match((await tab(page, 'auth').textContent()) ?? '', /^⚠/)
    assert.is(await auth.locator('[data-expiry]').getAttribute('class'), 'bad')
    assert.match((await auth.locator('[data-expiry]').textContent()) ?? '', '(expired)')
    await screenshot(page, 'panels-auth-expired')
  },
)

// ---------------------------------------------------------------------------------------------
// Request body

pageTest(
  'the request body: above every tab, collapsed, decoded, masked at every size, kept to 8 KB, never sent',
  async (page, { pg }) => {
    const seen: Request[] = []
    page.on('request', (r) => seen.push(r))
    // Signed in as a user the dev panel answers (usertype ≥ 90): the server log is offered.
    await signIn(page, pg.url, '/')
    await waitForRows(page, 1)
    const form = { 'content-type': 'application/x-www-form-urlencoded' }

    // ≤ 2 KB: decoded into nested structure and pretty-printed, secrets masked.
    const small = `a[b][]=1&a[b][]=2&user[name]=ann&user[password]=hunter2-small&note=${JWT_LIKE}`
    // > 2 KB: shown as sent, not pretty-printed, secrets still masked.
    const medium = `password=hunter2-medium&filler=${'x'.repeat(2500)}&list[]=1&list[]=2&note=${JWT_LIKE}`
    // > 8 KB: kept to 8 KB and marked as cut, secrets in the kept part masked.
    const large =
      `password=hunter2-large&head=${'y'.repeat(3000)}&access_token=tok-hunter2-3f9c01` +
      `&middle=${'z'.repeat(3000)}&client_secret=hunter2-client&tail=${'w'.repeat(4000)}` +
      `&after_the_cut=hunter2-late`
    for (const body of [small, medium, large])
      await call(page, '/account/login', { method: 'POST', headers: { ...json, ...form }, body })

    const body = panelOf(page, 'requests').locator('details[data-body]')
    /** Selects a POST row by its number; answers the body's summary line and text. */
    const bodyOf = async (n: number) => {
      await openTab(page, 'requests')
      await inBar(page, `tr[data-row="${n}"] button.pick`).click()
      await inBar(page, '.chip').waitFor()
      await body.waitFor()
      assert.is(await body.evaluate((d) => (d as HTMLDetailsElement).open), false, 'collapsed')
      const summary = (await body.locator('summary').textContent()) ?? ''
      await body.locator('summary').click()
      const text = (await body.locator('pre').textContent()) ?? ''
      await body.locator('summary').click() // collapsed again for the next row
      await release(page)
      return { summary, text }
    }
    const [nSmall, nMedium, nLarge] = [2, 3, 4]
    await openTab(page, 'requests')
    for (const n of [nSmall, nMedium, nLarge])
      assert.match(
        (await cells(page, `tr[data-row="${n}"]`))[0]!.join(' '),
        'POST /account/login',
        'rows in order',
      )

    // The page's own GET has no body: nothing above the tabs.
    await openTab(page, 'requests')
    assert.is(await body.count(), 0)

    const s = await bodyOf(nSmall)
    assert.is(
      s.summary,
      `Request body of #${nSmall} POST /account/login (${small.length.toLocaleString('en')} characters)`,
    )
    assert.equal(JSON.parse(s.text), {
      a: { b: ['1', '2'] },
      user: { name: 'ann', password: '***' },
      note: '***',
    })
    assert.match(s.text, '\n  "a": {', 'pretty-printed')

    const m = await bodyOf(nMedium)
    assert.is(
      m.summary,
      `Request body of #${nMedium} POST /account/login (${medium.length.toLocaleString('en')} characters)`,
    )
    assert.is(
      m.text,
      medium.replace('hunter2-medium', '***').replace(JWT_LIKE, '***'),
      'as sent, masked',
    )

    const l = await bodyOf(nLarge)
    assert.is(
      l.summary,
      `Request body of #${nLarge} POST /account/login (${large.length.toLocaleString('en')} characters, cut at 8 KB)`,
    )
    const masked = large
      .replace('hunter2-large', '***')
      .replace('tok-hunter2-3f9c01', '***')
      .replace('hunter2-client', '***')
      .replace('hunter2-late', '***')
    assert.is(l.text, `${masked.slice(0, 8 * 1024)}\n… (cut)`)
    assert.not.match(l.text, 'hunter2')

    // Above every tab the selected request has, collapsed.
    await openTab(page, 'requests')
    await inBar(page, `tr[data-row="${nSmall}"] button.pick`).click()
    await inBar(page, '.chip').waitFor()
    const ids = await tabIds(page)
    for (const id of ['requests', 'time', 'route', 'client', 'api'])
      assert.ok(ids.includes(id), `${id} in ${ids.join()}`)
    for (const id of ids) {
      await openTab(page, id)
      const first = panelOf(page, id).locator(':scope > :first-child')
      assert.is(await first.getAttribute('data-body'), '', `${id}: the body comes first`)
      assert.is(await first.evaluate((d) => (d as HTMLDetailsElement).open), false, id)
      assert.match(
        (await first.locator('summary').textContent()) ?? '',
        `#${nSmall} POST /account/login`,
      )
    }

    // The toolbar's own traffic (the server-log button) carries none of it either.
    await openTab(page, 'requests')
    await inBar(page, `tr[data-row="${nLarge}"] [data-log]`).click()
    await inBar(page, '[data-serverlog]').waitFor()
    await screenshot(page, 'panels-body')
    const carrying = seen.filter(
      (r) =>
        r.url().includes('hunter2') ||
        (r.postData() ?? '').includes('hunter2') ||
        Object.values(r.headers()).some((v) => v.includes('hunter2')),
    )
    assert.equal(
      carrying.map((r) => `${r.method()} ${new URL(r.url()).pathname}`),
      ['POST /account/login', 'POST /account/login', 'POST /account/login'],
      'only the page’s own three posts carry the bodies',
    )
    assert.ok(
      seen.some((r) => new URL(r.url()).pathname === '/devpanel/logs'),
      'the toolbar did ask for the server log',
    )
    const stored = await page.evaluate(() =>
      [localStorage, sessionStorage]
        .flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`))
        .concat(document.cookie)
        .join('\n'),
    )
    assert.not.match(stored, 'hunter2', 'nor kept in storage or cookies')
  },
)

// ---------------------------------------------------------------------------------------------
// Time

pageTest(
  'Time: client = server + remainder; the SQL share is red above half; figures absent without input',
  async (page, { pg }) => {
    await home(page, pg.url)
    assert.is(await call(page, '/_demo/queries?n=50', { headers: json }), 200)
    assert.is(await call(page, '/_demo/log?message=timed', { headers: json }), 200)
    // `_debug=off` answers without any debug data: no payload, no X-Fw-Debug.
    assert.is(await call(page, '/_demo/ping?_debug=off', { headers: json }), 200)
    // What a single-page app reports without a client time.
    await page.evaluate(() => {
      const bar = (window as unknown as { __fwDebugBar: { record: (...a: unknown[]) => void } })
        .__fwDebugBar
      bar.record('GET', '/spa/recorded', 200, { time: 12.5, queries: { count: 1, total_ms: 2 } })
    })
    await waitForRows(page, 5)
    const figure = (name: string) => panelOf(page, 'time').locator(`[data-figure="${name}"]`)

    /** The three figures of the open Time panel, checked to add up within display rounding. */
    const addsUp = async (what: string) => {
      const client = msOf((await figure('client').textContent())!)
      const server = msOf((await figure('server').textContent())!)
      const remainder = msOf((await figure('remainder').textContent())!)
      const slack = halfStep(client) + halfStep(server) + halfStep(remainder) + 1e-9
      assert.ok(server > 0 && client >= server, `${what}: ${client} ≥ ${server}`)
      assert.ok(
        Math.abs(client - (server + remainder)) <= slack,
        `${what}: ${client} = ${server} + ${remainder}`,
      )
      return { client, server, remainder }
    }

    // The page's own request (the default view): no SQL worth a share.
    await openTab(page, 'time')
    await addsUp('own page')
    assert.is(await panelOf(page, 'time').locator('[data-share].bad').count(), 0)
    assert.not.match((await tab(page, 'time').getAttribute('class')) ?? '', /\balert\b/)

    // 50 statements: SQL dominates the server time.
    await select(page, '/_demo/queries?n=50')
    await openTab(page, 'time')
    const q = await addsUp('/_demo/queries?n=50')
    const sql = msOf((await figure('sql').textContent())!.split(' · ')[0]!)
    const share = panelOf(page, 'time').locator('[data-share]')
    assert.ok(sql / q.server > 0.5, `${sql} of ${q.server}`)
    assert.is(await share.getAttribute('class'), 'bad')
    assert.match((await share.textContent()) ?? '', /^\d+% of server time$/, 'the share in percent')
    assert.ok(Number.parseInt((await share.textContent())!, 10) > 50)
    assert.match((await tab(page, 'time').getAttribute('class')) ?? '', /\balert\b/)
    assert.match((await tab(page, 'time').textContent()) ?? '', /^⚠/)
    await screenshot(page, 'panels-time-sql-share')

    // No statement: the share stays plain.
    await select(page, '/_demo/log?message=timed')
    await openTab(page, 'time')
    await addsUp('/_demo/log')
    assert.is(await share.getAttribute('class'), '')
    assert.not.match((await tab(page, 'time').getAttribute('class')) ?? '', /\balert\b/)

    // No debug data: the client figure alone; the others are absent, not zero.
    await select(page, '/_demo/ping?_debug=off')
    await openTab(page, 'time')
    assert.ok(msOf((await figure('client').textContent())!) > 0)
    for (const name of ['server', 'remainder', 'sql'])
      assert.is(await figure(name).count(), 0, `${name} absent`)
    assert.is(await share.count(), 0)
    assert.match(await textOf(panelOf(page, 'time')), 'The server reported no time')

    // No client time: the server figure alone (and the SQL share it allows).
    await select(page, '/spa/recorded')
    await openTab(page, 'time')
    assert.is(await figure('client').count(), 0, 'client absent')
    assert.is(await figure('remainder').count(), 0, 'remainder absent')
    assert.is(await figure('server').textContent(), '12.5 ms')
    assert.is(await share.textContent(), '16% of server time')
    assert.match(await textOf(panelOf(page, 'time')), 'The browser measured no client time')
  },
)

// ---------------------------------------------------------------------------------------------
// Exceptions tab

pageTest(
  'the Exceptions tab turns red with a warning mark; rows without details point to the error log',
  async (page, { pg }) => {
    await home(page, pg.url)
    assert.is(await tab(page, 'exceptions').count(), 0, 'nothing raised yet')
    assert.is(await call(page, '/_demo/ping', { headers: json }), 200)
    assert.is(await tab(page, 'exceptions').count(), 0, 'still nothing raised')

    // An HTML error page fetched: only the X-Fw-Debug summary (errors: 1) comes back.
    assert.is(await call(page, '/_demo/error', { headers: { accept: 'text/html' } }), 500)
    const html = await rowFor(page, '/_demo/error')
    const button = tab(page, 'exceptions')
    assert.match((await button.getAttribute('class')) ?? '', /\balert\b/)
    assert.match((await button.textContent()) ?? '', /^⚠ Exceptions/)
    await openTab(page, 'exceptions')
    const htmlRow = [
      `#${html} GET /_demo/error`,
      '1 raised',
      'The messages are in the application error log.',
      '500',
    ]
    assert.equal(await cells(page, 'table.exceptions tbody tr'), [htmlRow])

    // A JSON error carries its details: the message itself, no pointer to the log.
    assert.is(await call(page, '/_demo/error?as=json', { headers: json }), 500)
    const detailed = await rowFor(page, '/_demo/error?as=json')
    await openTab(page, 'exceptions')
    assert.equal(await cells(page, 'table.exceptions tbody tr'), [
      htmlRow,
      [
        `#${detailed} GET /_demo/error?as=json`,
        'Error',
        'The handler of /_demo/error threw on purpose.',
        '500',
      ],
    ])
    assert.match((await button.textContent()) ?? '', /^⚠ Exceptions/)
  },
)

// ---------------------------------------------------------------------------------------------
// Domain

pageTest(
  'the Domain tab: models loaded, a service recorded and its measured call timed',
  async (page, { pg }) => {
    await home(page, pg.url)
    assert.is(await tab(page, 'domain').count(), 0, 'the home page touches no model or service')
    const headers = { ...json, apikey: API_KEY }
    assert.is(await call(page, '/api/v1/products/1', { headers }), 200)
    assert.is(await call(page, '/_demo/measure', { headers: json }), 200)

    await select(page, '/api/v1/products/1')
    const domain = await openTab(page, 'domain')
    assert.equal(await cells(page, 'table.models tbody tr'), [['loaded', 'Product', '1']])
    assert.match(await textOf(domain), 'No service was recorded.')

    await select(page, '/_demo/measure')
    await openTab(page, 'domain')
    assert.match(await textOf(domain), 'No model was loaded, saved or deleted.')
    const services = await cells(page, 'table.services tbody tr')
    assert.equal(services[0], ['PriceService', 'yes', '', '', ''])
    assert.equal(services[1]!.slice(0, 3), ['customer-secret-lookup', '', '1'])
    assert.match(services[1]![3]!, / ms$/)
    assert.ok(msOf(services[1]![3]!) > 0, 'the measured call has a duration')
    assert.is(services.length, 2)
    assert.match(await textOf(domain), 'measure(name, fn)')
  },
)

// ---------------------------------------------------------------------------------------------
// API

pageTest(
  "the API tab lists the playground's own document and sends an operation, recorded as a row",
  async (page, { pg }) => {
    const { api, ops, send } = await apiTab(page, pg.url)
    assert.match(await textOf(api), 'from /api/openapi.json, sent to /api/v1')
    // The document `fw api:docs` writes (the openapi plugin wrote it when the playground started).
    assert.equal(ops, [
      'GET /api/v1/me',
      'GET /api/v1/products',
      'POST /api/v1/products',
      'GET /api/v1/products/datatable',
      'GET /api/v1/products/{id}',
      'DELETE /api/v1/products/{id}',
      'PATCH /api/v1/products/{id}',
      'GET /api/v2/products',
    ])
    const path = api.locator('input.path')
    // The create operation's body comes from its schema's examples.
    await api.locator('button[data-op="POST /api/v1/products"]').click()
    assert.equal(JSON.parse(await api.locator('textarea').inputValue()), {
      name: 'Desk lamp',
      sku: 'LAMP-01',
      price: 19.5,
      stock: 3,
      active: false,
      tags: [],
      notes: '',
      category_id: 0,
    })
    // v2 keeps its own version: the document's paths are rooted at /api already.
    await api.locator('button[data-op="GET /api/v2/products"]').click()
    assert.is(await path.inputValue(), '/api/v2/products')
    await api.locator('button[data-op="GET /api/v1/products/{id}"]').click()
    assert.is(await path.inputValue(), '/api/v1/products/{id}')
    await path.fill('/api/v1/products/7')
    await send(200)
    assert.match((await api.locator('[data-reply]').textContent()) ?? '', '"sku":"PG-0007"')
    await waitForRows(page, 2)
    await openTab(page, 'requests')
    const rows = await cells(page, 'tr[data-row]')
    assert.equal(rows[0]!.slice(1, 4), ['GET', '/api/v1/products/7', '200'])
  },
)

pageTest(
  'the API tab lists the operations and sends them through the real server to the prefix',
  async (page, { pg }) => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'panels', version: '1' },
      servers: [{ url: 'http://elsewhere.invalid/api/v9' }],
      paths: {
        '/products/{product}': {
          get: { summary: 'Show a product' },
          patch: {
            summary: 'Change a product',
            requestBody: {
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/ProductInput' } },
              },
            },
          },
        },
        '/products': {
          post: {
            summary: 'Create a product',
            requestBody: {
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/ProductInput' },
                  example: {
                    name: 'Made in the API tab',
                    sku: 'API-TAB-0001',
                    price: 12.5,
                    stock: 3,
                  },
                },
              },
            },
          },
        },
        'http://elsewhere.invalid/products/2': { get: { summary: 'An absolute URL' } },
      },
      components: {
        schemas: {
          ProductInput: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              price: { type: 'number', example: 9.99 },
              stock: { type: 'integer' },
              active: { type: 'boolean' },
              tags: { type: 'array', items: { type: 'string' } },
              meta: { type: 'object', properties: { deep: { type: 'string', example: 'x' } } },
            },
          },
        },
      },
    }
    await page.route('**/openapi.json', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(doc) }),
    )
    const seen: Request[] = []
    page.on('request', (r) => seen.push(r))
    const { api, ops, send: sendAndWait } = await apiTab(page, pg.url)
    assert.is(await tab(page, 'api').locator('.count').textContent(), '4')
    assert.match(await textOf(api), 'sent to /api/v1')
    assert.match(await textOf(api), 'application API key from configuration (header apikey)')
    assert.equal(ops, [
      'GET /products/{product}',
      'PATCH /products/{product}',
      'POST /products',
      'GET /products/2',
    ])
    const op = (name: string) => api.locator(`button[data-op="${name}"]`)
    const path = api.locator('input.path')
    const textarea = api.locator('textarea')

    // GET with an editable path; no body.
    await op('GET /products/{product}').click()
    assert.is(await path.inputValue(), '/api/v1/products/{product}')
    assert.is(await textarea.count(), 0)
    await path.fill('/api/v1/products/1')
    await sendAndWait(200)
    assert.match((await api.locator('[data-reply]').textContent()) ?? '', '"sku":"PG-0001"')

    // A body from one level of the schema's properties.
    await op('PATCH /products/{product}').click()
    assert.equal(JSON.parse(await textarea.inputValue()), {
      name: '',
      price: 9.99,
      stock: 0,
      active: false,
      tags: [],
      meta: {},
    })

    // A body from the example, sent for real.
    await op('POST /products').click()
    assert.is(await path.inputValue(), '/api/v1/products')
    assert.equal(JSON.parse(await textarea.inputValue()), {
      name: 'Made in the API tab',
      sku: 'API-TAB-0001',
      price: 12.5,
      stock: 3,
    })
    await sendAndWait(201)

    // The absolute URL: its host is ignored, the injected prefix used.
    await op('GET /products/2').click()
    assert.is(await path.inputValue(), '/api/v1/products/2')
    await sendAndWait(200)
    await screenshot(page, 'panels-api')

    // Through the real server, with the configured key, recorded as rows.
    const origin = new URL(pg.url).origin
    const sent = seen.filter(
      (r) => new URL(r.url()).pathname.startsWith('/api/v'), // not the document itself
    )
    assert.equal(
      sent.map((r) => `${r.method()} ${r.url().slice(origin.length)}`),
      ['GET /api/v1/products/1', 'POST /api/v1/products', 'GET /api/v1/products/2'],
    )
    for (const r of sent) assert.is(r.headers().apikey, API_KEY, r.url())
    assert.is(sent[1]!.headers()['content-type'], 'application/json')
    assert.equal(
      JSON.parse(sent[1]!.postData()!),
      doc.paths['/products'].post.requestBody.content['application/json'].example,
    )
    assert.equal(
      seen.filter((r) => new URL(r.url()).origin !== origin).map((r) => r.url()),
      [],
      'nothing left the playground (servers and absolute URLs ignored)',
    )
    await waitForRows(page, 4)
    await openTab(page, 'requests')
    const rows = await cells(page, 'tr[data-row]')
    assert.equal(
      rows.map((r) => [r[1], r[2], r[3]]),
      [
        ['GET', '/api/v1/products/2', '200'],
        ['POST', '/api/v1/products', '201'],
        ['GET', '/api/v1/products/1', '200'],
        ['GET', '/this page', '200'],
      ],
    )
    const created = await pg.kernel.inject({
      url: '/api/v1/products?search=API-TAB-0001&fields=sku',
      headers: { ...json, apikey: API_KEY },
    })
    assert.match(created.body.toString(), '"sku":"API-TAB-0001"')
  },
)

// ---------------------------------------------------------------------------------------------
// Route, Session, Views, Migrations

pageTest(
  'Route, Session, Views and Migrations show their data when present and are absent otherwise',
  async (page, { pg }) => {
    // An anonymous first visit: a route and a view, no cookie, every migration ran.
    await home(page, pg.url)
    let ids = await tabIds(page)
    for (const id of ['route', 'views']) assert.ok(ids.includes(id), `${id} in ${ids.join()}`)
    for (const id of ['session', 'migrations']) assert.not.ok(ids.includes(id), `${id} absent`)
    await openTab(page, 'route')
    assert.equal(await pairs(page, 'route'), {
      Method: 'GET',
      Path: '',
      Name: 'home',
      Handler: 'home',
    })
    await openTab(page, 'views')
    const views = await cells(page, '.panel[data-panel="views"] tbody tr')
    assert.is(views[0]![0], 'home')
    assert.match(views[0]![1]!, /views\/home\.eta$/)

    // A JSON object: a route with its parameters, no view.
    assert.is(
      await call(page, '/api/v1/products/7', { headers: { ...json, apikey: API_KEY } }),
      200,
    )
    // A JSON array carries no payload: none of the four.
    assert.is(await call(page, '/_demo/array', { headers: json }), 200)
    // A payload reported by an app, with one migration that ran and one pending.
    await page.evaluate(() => {
      const bar = (window as unknown as { __fwDebugBar: { record: (...a: unknown[]) => void } })
        .__fwDebugBar
      bar.record('POST', '/spa/migrate', 200, {
        time: 40,
        migrations: [
          { name: '2024_01_01_000000_create_widgets', executed_at: '2024-01-01T00:00:00.000Z' },
          { name: '2024_02_01_000000_add_prices', executed_at: null },
        ],
      })
    })

    await select(page, '/api/v1/products/7')
    ids = await tabIds(page)
    assert.ok(ids.includes('route'))
    assert.not.ok(ids.includes('views'), 'no view rendered')
    await openTab(page, 'route')
    assert.equal(await pairs(page, 'route'), {
      Method: 'GET',
      Path: 'api/v1/products/{id}',
      Name: 'v1.products.show',
      Handler: 'ProductsController@show',
      Parameters: '{"id":"7"}',
    })

    await select(page, '/_demo/array')
    ids = await tabIds(page)
    for (const id of ['route', 'views', 'session', 'migrations'])
      assert.not.ok(ids.includes(id), `${id} absent without a payload`)

    await select(page, '/spa/migrate')
    const migrations = await openTab(page, 'migrations')
    // The pending one is counted and marked; the one that ran is listed with its time.
    assert.is(await tab(page, 'migrations').locator('.count').textContent(), '1')
    assert.match(await textOf(migrations), '1 pending: run fw migrate')
    const pendingRow = migrations.locator('tr[data-pending="true"]')
    assert.is(await pendingRow.count(), 1)
    assert.match(await textOf(pendingRow), /2024_02_01_000000_add_prices\s*pending/)
    assert.match(
      await textOf(migrations.locator('tr[data-pending="false"]')),
      /2024_01_01_000000_create_widgets\s*ran 2024-01-01T00:00:00.000Z/,
    )
    assert.not.ok((await tabIds(page)).includes('route'))

    // Signed in: the session's cookies, masked.
    await signIn(page, pg.url, '/')
    await waitForRows(page, 1)
    const session = await openTab(page, 'session')
    const cookies = await cells(page, '.panel[data-panel="session"] tbody tr')
    assert.ok(
      cookies.some(([name, value]) => name === 'fw_session' && value === '***'),
      JSON.stringify(cookies),
    )
    assert.match(await textOf(session), 'Cookies')
  },
)

test.run()
