// The debug toolbar in a page: its tab buttons, its open panel and its requests count, reached
// inside its shadow root (Playwright's CSS locators pierce open shadow roots).
import type { Locator, Page } from 'playwright-core'

/** The toolbar's tab button. */
export const tab = (page: Page, id: string) => page.locator(`fw-debugbar [data-tab="${id}"]`)
/** The open panel. */
export const panel = (page: Page) => page.locator('fw-debugbar .panel')

/** The ids of the visible tabs, in order. */
export function tabIds(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(
      document.querySelector('fw-debugbar')?.shadowRoot?.querySelectorAll('[data-tab]') ?? [],
      (b) => (b as HTMLElement).dataset.tab!,
    ),
  )
}

/** Opens a tab (if it is not open already) and returns the panel. */
export async function openTab(page: Page, id: string) {
  const button = tab(page, id)
  if ((await button.getAttribute('aria-selected')) !== 'true') await button.click()
  await page.locator(`fw-debugbar .panel[data-panel="${id}"]`).waitFor()
  return panel(page)
}

/** Selects the request whose path is `path`: opens the requests tab and clicks the row's path. */
export async function pickRequest(page: Page, path: string): Promise<void> {
  await openTab(page, 'requests')
  const row = page.locator('fw-debugbar tr[data-row]').filter({
    has: page.locator('button.pick', { hasText: path }),
  })
  await row.locator('button.pick').click()
}

/**
 * The body rows of `table` (a CSS selector) in `scope`, each as its cells' trimmed text, once it
 * has a first row.
 */
export async function tableRows(scope: Page | Locator, table: string): Promise<string[][]> {
  const rows = scope.locator(`${table} tbody tr`)
  await rows.first().waitFor()
  return rows.evaluateAll((trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent!.trim())),
  )
}

/** Waits until the requests tab counts at least `n` rows. */
export async function waitForRows(page: Page, n: number): Promise<void> {
  await page.waitForFunction((n) => {
    const c = document
      .querySelector('fw-debugbar')
      ?.shadowRoot?.querySelector('[data-tab="requests"] .count')?.textContent
    return Number(c ?? 0) >= n
  }, n)
}
