// The playground's products page in Chromium: its EventSource on the `products` channel shows a
// product updated or created through the API without a reload of the page (the table is asked
// again; the document stays the same one).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Browser } from 'playwright-core'
import { launchBrowser, newPage, startPlayground, type Playground } from './harness.js'

interface Context {
  browser: Browser
  pg: Playground
}
const test = suite<Context>('browser: live products page')

test.before(async (context) => {
  context.pg = await startPlayground()
  context.browser = await launchBrowser()
})

test.after(async (context) => {
  await context.browser?.close()
  await context.pg?.close()
})

async function api(pg: Playground, method: string, path: string, body: object) {
  const res = await fetch(`${pg.url}/api/v1/products${path}`, {
    method,
    headers: { apikey: 'demo-api-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${await res.clone().text()}`)
  return (await res.json()) as { id: number }
}

test('shows a product updated and one created through the API without reloading', async ({
  browser,
  pg,
}) => {
  const { context, page, problems } = await newPage(browser)
  try {
    await page.goto(`${pg.url}/products`)
    await page.locator('#product-live', { hasText: 'Live updates: on' }).waitFor()
    await page.locator('#products tbody tr').first().waitFor()
    // Marks this document: a reload would lose the mark.
    await page.evaluate(() => ((window as unknown as { marked: boolean }).marked = true))
    const firstRowId = await page.locator('#products tbody tr:first-child td').first().textContent()

    await api(pg, 'PATCH', `/${firstRowId}`, { name: 'Renamed while you looked' })
    await page
      .locator('#products tbody tr:first-child', { hasText: 'Renamed while you looked' })
      .waitFor({ timeout: 5000 })

    const before = await page.locator('#product-status').textContent()
    const { id } = await api(pg, 'POST', '', {
      name: 'Brand new',
      sku: 'LIVE-BROWSER',
      price: 2,
      stock: 3,
    })
    await page
      .locator('#product-live', { hasText: `product #${id} created` })
      .waitFor({ timeout: 5000 })
    await page.locator('#product-status', { hasText: '1,001' }).waitFor({ timeout: 5000 })
    assert.ok(before?.includes('1,000'), before ?? '')
    assert.is(
      await page.evaluate(() => (window as unknown as { marked?: boolean }).marked),
      true,
      'the page was reloaded',
    )
    assert.equal(problems, [])
  } finally {
    await context.close()
  }
})

test.run()
