// `fw dev` in a real Chromium, for an app without the debug plugin: the page has no toolbar, so a
// file that fails to load shows in the page script's own plain overlay (`#fw-dev-overlay`), and
// the change served once a save fixes it is said on the console after the page reloaded.
import * as assert from 'uvu/assert'
import type { ConsoleMessage } from 'playwright-core'
import { createTempPackage } from '../e2e/dev-process.js'
import { assertReloaded, devSuite, markDocument } from './dev-suite.js'
import { screenshot } from './harness.js'

/** How long a saved change may take to reach the page on a busy machine (a deadline, not a sleep). */
const DEADLINE_MS = 30_000

const APP = `import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel } from 'fw'
import { page } from './controllers/page.js'

export default ({ env }: { env?: NodeJS.ProcessEnv } = {}) => {
  const kernel = createKernel({ root: dirname(fileURLToPath(import.meta.url)), env })
  kernel.router.get('/', page).name('page')
  return kernel
}
`
const page = (heading: string): string => `import { html, type Reply } from 'fw'

/** \`GET /\`: a page of its own, no views, no toolbar. */
export function page(): Reply {
  return html('<!doctype html><html><head><title>plain</title></head><body><h1>${heading}</h1></body></html>')
}
`

const test = devSuite(
  'browser: fw dev, plain overlay',
  () =>
    createTempPackage({
      app: './app.ts',
      files: { 'app.ts': APP, 'controllers/page.ts': page('plain page, first') },
    }),
  { NODE_ENV: 'development' },
)

test('a broken file shows in the plain overlay with file:line; the fix reloads the page', async ({
  copy,
  browser,
  dev,
  page: browserPage,
}) => {
  const consoleLines: string[] = []
  browserPage.on('console', (message: ConsoleMessage) => consoleLines.push(message.text()))
  await browserPage.goto(dev.url)
  await browserPage.waitForFunction(() => (window as { __fwDev?: boolean }).__fwDev === true)
  assert.match((await browserPage.textContent('h1')) ?? '', 'plain page, first')
  assert.is(await browserPage.locator('fw-debugbar').count(), 0, 'no toolbar on the page')
  await markDocument(browserPage)

  copy.replace('controllers/page.ts', "</html>')", "</html>'")
  const overlay = browserPage.locator('#fw-dev-overlay')
  await overlay.waitFor({ state: 'visible', timeout: DEADLINE_MS })
  assert.is(await overlay.getAttribute('role'), 'alert')
  const text = (await overlay.textContent()) ?? ''
  assert.match(text, 'The previous code is still serving')
  assert.match(text, /controllers\/page\.ts:\d+:\d+/)
  // The message as esbuild gave it (the overlay's text is the failure the server printed).
  assert.match(dev.output(), /controllers\/page\.ts:\d+:\d+/)
  const message = /ERROR: ([^\n]+)/.exec(dev.output())?.[1]
  assert.ok(message, dev.output())
  assert.match(text, message)
  const position = await overlay.evaluate((el) => getComputedStyle(el).position)
  assert.is(position, 'fixed')
  await screenshot(browserPage, 'dev-plain-overlay')
  // A page opened while the failure stands is told at once (the stream's first event).
  const late = await browser.newPage()
  await late.goto(dev.url)
  await late.locator('#fw-dev-overlay').waitFor({ state: 'visible', timeout: DEADLINE_MS })
  assert.match((await late.textContent('#fw-dev-overlay')) ?? '', message)
  await late.close()

  copy.write('controllers/page.ts', page('plain page, fixed'))
  await assertReloaded(browserPage, 'h1', 'plain page, fixed')
  assert.is(await browserPage.locator('#fw-dev-overlay').count(), 0)
  await browserPage.waitForFunction(() => (window as { __fwDev?: boolean }).__fwDev === true)
  const served = consoleLines.find((line) => line.startsWith('fw dev: '))
  assert.ok(served, consoleLines.join('\n'))
  assert.match(served, /^fw dev: controllers\/page\.ts changed: .+ \(\d+ ms\)$/)
})

test.run()
