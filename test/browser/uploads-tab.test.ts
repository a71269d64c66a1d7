// The playground's product image upload in Chromium: an editor picks a PNG on the admin area's
// image page, the page sends it (with the session's CSRF token), shows the image served back
// under /media, and the toolbar's Uploads tab lists the file the upload request received.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { browserSuite, screenshot, signIn, startPlayground, withPage } from './harness.js'
import { openTab, pickRequest, tab, tableRows } from './toolbar.js'

/** A real 1×1 PNG, which the browser can draw. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

const test = browserSuite('browser: uploads tab', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-browser-uploads-'))
  const config = { admin: { prefix: 'admin' }, uploads: { dir } }
  return startPlayground({ FW_CONFIG: JSON.stringify(config) })
})

test('an uploaded image is shown, and the Uploads tab lists its file', async ({ browser, pg }) => {
  await withPage(browser, async (page, problems) => {
    await signIn(page, pg.url, '/admin/images/edit/3', 'editor', 'editor-pass')
    assert.match((await page.textContent('#product-image')) ?? '', 'No image yet.')
    await page.setInputFiles('input[name="image"]', {
      name: 'desk.png',
      mimeType: 'image/png',
      buffer: PNG,
    })
    await page.click('#image-form button[type="submit"]')
    await page.waitForFunction(
      () => document.getElementById('image-result')?.textContent === 'Saved.',
    )
    const img = page.locator('#product-image img')
    await img.waitFor()
    assert.match((await img.getAttribute('src')) ?? '', /^\/media\/products\/3\.png\?v=\d+$/)
    await page.waitForFunction(() => {
      const image = document.querySelector('#product-image img') as HTMLImageElement | null
      return image !== null && image.complete && image.naturalWidth === 1
    })
    // The upload request is the newest row; selecting it shows what it received.
    await pickRequest(page, '/admin/images/upload/3')
    await tab(page, 'uploads').waitFor()
    assert.is(await tab(page, 'uploads').locator('.count').textContent(), '1')
    const panel = await openTab(page, 'uploads')
    const [cells = []] = await tableRows(panel, 'table.uploads')
    assert.equal(cells.slice(0, 5), [
      'image',
      'desk.png',
      `${PNG.length} B`,
      'image/png',
      'image/png',
    ])
    await screenshot(page, 'uploads-tab')
    assert.equal(problems, [])
  })
})

test.run()
