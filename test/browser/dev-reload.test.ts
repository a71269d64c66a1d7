// `fw dev` in a real Chromium: an open page reloads itself once a saved change is served and its
// debug toolbar says what changed; a file that fails to load shows in the toolbar's overlay until a
// save fixes it.
import * as assert from 'uvu/assert'
import { copyPlayground, until } from '../e2e/dev-process.js'
import { assertReloaded, devSuite, markDocument } from './dev-suite.js'
import { screenshot } from './harness.js'

const test = devSuite('browser: fw dev reloads the open page', copyPlayground)

/** How long a saved change may take to reach the page on a busy machine (a deadline, not a sleep). */
const DEADLINE_MS = 30_000

test('reloads the open page after a saved view and says what changed', async ({
  copy,
  dev,
  page,
}) => {
  await page.goto(dev.url)
  // The page listens on the reload stream once its script ran.
  await page.waitForFunction(() => (window as { __fwDev?: boolean }).__fwDev === true)
  await markDocument(page)
  copy.replace('views/home.eta', 'the demo app of fw', 'the demo app of fw, saved again')
  await assertReloaded(page, 'body', 'fw, saved again')
  const note = await page.locator('fw-debugbar .devnote').textContent({ timeout: DEADLINE_MS })
  assert.match(note ?? '', 'views/home.eta changed: served as is')
})

test('reloads a page whose reload stream opened only after a change was served', async ({
  copy,
  dev,
  page,
}) => {
  // The page is rendered, then its stream is held back until the change was served: the stream's
  // hello is the only way the page learns of it.
  const servedLines = (): number => dev.output().split('changed: served as is').length
  const before = servedLines()
  let release = (): void => undefined
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/_fw/dev/events', async (route) => {
    await held
    await route.continue()
  })
  try {
    await page.goto(dev.url)
    await markDocument(page)
    copy.replace('views/home.eta', ', saved again', ', saved before its stream opened')
    await until(async () => (servedLines() > before ? true : undefined), 'the change served')
    release()
    await assertReloaded(page, 'body', 'saved before its stream opened')
  } finally {
    release()
    await page.unroute('**/_fw/dev/events')
  }
})

test("shows a file that fails to load in the toolbar's overlay until a save fixes it", async ({
  copy,
  page,
}) => {
  copy.replace('controllers/home.ts', 'links: DEMO_LINKS })', 'links: DEMO_LINKS ')
  const overlay = page.locator('fw-debugbar .devfail')
  await overlay.waitFor({ state: 'visible', timeout: DEADLINE_MS })
  const text = (await overlay.textContent()) ?? ''
  assert.match(text, 'controllers/home.ts:')
  assert.match(text, 'previous code is still serving')
  // The toolbar's own UI: inside its shadow root, laid out by its style sheet (the element has no
  // style attribute), and no overlay of the page script's own.
  const rendered = await page.evaluate(() => {
    const root = document.querySelector('fw-debugbar')?.shadowRoot
    const el = root?.querySelector('.devfail') as HTMLElement | null | undefined
    const card = el?.querySelector('.card')
    return {
      inToolbar: el !== null && el !== undefined,
      styleAttribute: el?.getAttribute('style') ?? null,
      position: el === null || el === undefined ? null : getComputedStyle(el).position,
      card: card === null || card === undefined ? null : getComputedStyle(card).borderTopStyle,
      plain: document.getElementById('fw-dev-overlay') !== null,
    }
  })
  assert.equal(rendered, {
    inToolbar: true,
    styleAttribute: null,
    position: 'fixed',
    card: 'solid',
    plain: false,
  })
  await screenshot(page, 'dev-overlay')
  copy.replace('controllers/home.ts', 'links: DEMO_LINKS ', 'links: DEMO_LINKS })')
  // The fix is served: the page reloads, the overlay is gone and the toolbar names the file.
  await page.waitForFunction(
    () =>
      document
        .querySelector('fw-debugbar')
        ?.shadowRoot?.querySelector('.devnote')
        ?.textContent?.includes('controllers/home.ts changed') === true,
    null,
    { timeout: DEADLINE_MS },
  )
  const note = (await page.locator('fw-debugbar .devnote').textContent()) ?? ''
  assert.match(note, 'controllers/home.ts changed: app rebuilt')
  assert.is(await page.locator('fw-debugbar .devfail').count(), 0)
  assert.match((await page.textContent('body')) ?? '', 'the demo app of fw')
})

test.run()
