// A suite of `fw dev` in Chromium: a copy of an app, `fw dev` running in it, a browser and one page,
// opened before the tests and all closed after them (uvu runs `after` even when `before` threw, so
// whatever had opened is closed).
import type { Browser, Page } from 'playwright-core'
import { suite, type Test } from 'uvu'
import * as assert from 'uvu/assert'
import { runInCopy, type RunningApp, type TempPackage } from '../e2e/dev-process.js'
import { launchBrowser } from './harness.js'

/** What a {@link devSuite}'s tests get. */
export interface DevSuite<Copy extends TempPackage> {
  /** The app's files, which a test edits as a developer saves them. */
  copy: Copy
  /** `fw dev` running in the copy. */
  dev: RunningApp
  browser: Browser
  page: Page
}

/** A suite running `fw dev` (with `env`) in the copy that `copy()` makes. */
export function devSuite<Copy extends TempPackage>(
  name: string,
  copy: () => Copy,
  env: NodeJS.ProcessEnv = {},
): Test<DevSuite<Copy>> {
  const test = suite<DevSuite<Copy>>(name)
  test.before(async (context) => {
    context.copy = copy()
    context.dev = await runInCopy(context.copy, 'dev', env)
    context.browser = await launchBrowser()
    context.page = await context.browser.newPage()
  })
  test.after(async (context: Partial<DevSuite<Copy>>) => {
    await context.browser?.close()
    await context.dev?.stop()
    context.copy?.remove()
  })
  return test
}

/** How long a save may take to reach the page (a rebuild on a loaded machine). */
const RELOAD_MS = 30_000

/** Marks the page's document, so that {@link assertReloaded} tells a reload from a patch. */
export async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => ((window as { marker?: number }).marker = 1))
}

/**
 * Waits until `selector`'s text includes `text`, then asserts that a new document shows it: the
 * mark {@link markDocument} left is gone, so the page reloaded itself.
 */
export async function assertReloaded(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    ([selector, text]) => document.querySelector(selector)?.textContent?.includes(text) === true,
    [selector, text] as const,
    { timeout: RELOAD_MS },
  )
  assert.is(
    await page.evaluate(() => (window as { marker?: number }).marker),
    undefined,
    'a new document: the page reloaded itself',
  )
}
