// The playground's products page in Chromium: its EventSource on the `products` channel shows a
// product updated or created through the API without a reload of the page (the table is asked
// again; the document stays the same one).
import * as assert from 'uvu/assert'
import { browserSuite, withPage, type Playground } from './harness.js'

const test = browserSuite('browser: live products page')

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
  await withPage(browser, async (page, problems) => {
    await page.goto(`${pg.url}/products`)
    await page.locator('#product-live', { hasText: 'Live updates: on' }).waitFor()
    // The table's rows once loaded (before, one row says "Loading…"): the first cell an id.
    const firstId = page.locator('#products tbody tr:first-child td', { hasText: /^\d+$/ }).first()
    await firstId.waitFor()
    // Marks this document: a reload would lose the mark.
    await page.evaluate(() => ((window as unknown as { marked: boolean }).marked = true))
    const firstRowId = await firstId.textContent()

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
  })
})

test.run()
