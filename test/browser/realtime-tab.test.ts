// The toolbar's Realtime tab in Chromium, on the playground's products page: a request of the page
// that publishes on the `products` channel shows the publication (channel, event, id, size,
// reach), and one refused a stream shows the refusal in red.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Browser } from 'playwright-core'
import { json } from 'fw'
import { launchBrowser, newPage, screenshot, startPlayground, type Playground } from './harness.js'
import { onPostgres } from '../fixtures/on-postgres.js'
import { openTab, pickRequest, tab, tableRows } from './toolbar.js'

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
    await pickRequest(page, '/test/announce')
    await tab(page, 'realtime').waitFor()
    assert.is(await tab(page, 'realtime').locator('.count').textContent(), '1')
    await openTab(page, 'realtime')
    const [row] = await tableRows(page, 'fw-debugbar table.realtime')
    assert.equal(row!.slice(0, 6), [
      'published',
      'products',
      'announced',
      published.id,
      `${JSON.stringify({ note: 'sale' }).length} B`,
      // On PostgreSQL an event goes out through NOTIFY to every instance; on PGlite it stays here.
      onPostgres ? 'every instance' : 'this process',
    ])
    await screenshot(page, 'realtime-tab')

    const refused = await page.evaluate(() =>
      fetch('/events/nowhere', { headers: { accept: 'application/json' } }).then((r) => r.status),
    )
    assert.is(refused, 404)
    await pickRequest(page, '/events/nowhere')
    await tab(page, 'realtime').waitFor()
    assert.match((await tab(page, 'realtime').getAttribute('class')) ?? '', /\balert\b/)
    await openTab(page, 'realtime')
    const [refusal] = await tableRows(page, 'fw-debugbar table.realtime')
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
