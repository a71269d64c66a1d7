// The toolbar's Realtime tab in Chromium, on the playground's products page: a request of the page
// that publishes on the `products` channel shows the publication (channel, event, id, size,
// reach), and one refused a stream shows the refusal in red.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Browser, Page } from 'playwright-core'
import { json } from 'fw'
import { launchBrowser, newPage, screenshot, startPlayground, type Playground } from './harness.js'
import { openTab, tab } from './toolbar.js'

const test = suite<{ browser: Browser; pg: Playground }>('browser: realtime tab')

test.before(async (context) => {
  const [browser, pg] = await Promise.all([launchBrowser(), startPlayground()])
  context.browser = browser
  context.pg = pg
  // A route of the test's own that publishes in its handler, so its reply's `_debug` holds the
  // publication (the playground publishes its product changes after the reply).
  pg.kernel.router.get('test/announce', async (ctx) =>
    json(
      await ctx.kernel.plugin('realtime').publish('products', 'announced', { note: 'sale' }, ctx),
    ),
  )
})
test.after(async ({ browser, pg }) => {
  await browser?.close()
  await pg?.close()
})

/** The rows of the open Realtime panel, as their cells' text. */
function cells(page: Page): Promise<string[][]> {
  return page
    .locator('fw-debugbar table.realtime tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent!.trim())),
    )
}

async function pick(page: Page, path: string): Promise<void> {
  await openTab(page, 'requests')
  const row = page.locator('fw-debugbar tr[data-row]').filter({
    has: page.locator('button.pick', { hasText: path }),
  })
  await row.locator('button.pick').click()
}

test('lists a publication of the selected request, and a refused stream in red', async ({
  browser,
  pg,
}) => {
  const { context, page, problems } = await newPage(browser)
  try {
    await page.goto(`${pg.url}/products`)
    await page.locator('#product-live', { hasText: 'Live updates: on' }).waitFor()
    const published = await page.evaluate(() =>
      fetch('/test/announce').then((r) => r.json() as Promise<{ id: string }>),
    )
    await pick(page, '/test/announce')
    await tab(page, 'realtime').waitFor()
    assert.is(await tab(page, 'realtime').locator('.count').textContent(), '1')
    await openTab(page, 'realtime')
    const [row] = await cells(page)
    assert.equal(row!.slice(0, 6), [
      'published',
      'products',
      'announced',
      published.id,
      `${JSON.stringify({ note: 'sale' }).length} B`,
      // On PostgreSQL an event goes out through NOTIFY to every instance; on PGlite it stays here.
      /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')
        ? 'every instance'
        : 'this process',
    ])
    await screenshot(page, 'realtime-tab')

    const refused = await page.evaluate(() =>
      fetch('/events/nowhere', { headers: { accept: 'application/json' } }).then((r) => r.status),
    )
    assert.is(refused, 404)
    await pick(page, '/events/nowhere')
    await tab(page, 'realtime').waitFor()
    assert.match((await tab(page, 'realtime').getAttribute('class')) ?? '', /\balert\b/)
    await openTab(page, 'realtime')
    const [refusal] = await cells(page)
    assert.equal(refusal!.slice(0, 3), ['refused', 'nowhere', 'unknown'])
    // The browser reports the refusal it was asked for; nothing else went wrong.
    assert.equal(problems, [
      'Failed to load resource: the server responded with a status of 404 (Not Found)',
    ])
  } finally {
    await context.close()
  }
})

test.run()
