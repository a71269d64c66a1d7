// The browser tests' harness: Debian's Chromium driven by playwright-core (never a downloaded
// browser), the real playground listening on a loopback port with its own database, a suite and a
// page per test around them, and signing in (the toolbar's locators are in toolbar.ts).
// Screenshots land in test/browser/screenshots/ for a person to look at.
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { suite, type Test } from 'uvu'
import type { Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../playground/app.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const here = dirname(fileURLToPath(import.meta.url))
export const SCREENSHOTS = join(here, 'screenshots')

/** Debian's Chromium, headless, with nothing reaching outside the machine. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface Playground {
  readonly url: string
  readonly kernel: Kernel
  /** The log file, when started with `{ logging: true }`. */
  readonly logFile?: string
  close(): Promise<void>
}

export interface PlaygroundOptions {
  /**
   * Run the playground's logging plugin (as `npm run playground` does) instead of a memory logger,
   * writing a log file of this start's own (removed by `close()`): the Logs tab and the dev panel
   * need real `log.written` events and lines.
   */
  logging?: boolean
}

/**
 * The playground on 127.0.0.1 with a database of its own (PGlite in memory, or a fresh
 * PostgreSQL database when `DATABASE_URL` is set), migrated and seeded, in development mode.
 * `env.FW_CONFIG` is merged with what the harness sets.
 */
export async function startPlayground(
  env: Record<string, string> = {},
  options: PlaygroundOptions = {},
): Promise<Playground> {
  const db: TestDatabase = await createTestDatabase()
  const config = JSON.parse(env.FW_CONFIG ?? '{}') as Record<string, unknown>
  if (options.logging === true)
    config.app = { name: `browser-${process.pid}-${randomBytes(4).toString('hex')}` }
  const kernel = createApp({
    env: {
      DATABASE_URL: db.url,
      FW_APP_KEY: 'browser-test-application-key-0123456789',
      ...env,
      FW_CONFIG: JSON.stringify(config),
    },
    ...(options.logging === true ? {} : { logger: createMemoryLogger() }),
  })
  await kernel.boot()
  await kernel.plugin('database').prepare()
  const logFile = options.logging === true ? kernel.plugin('logging').file : undefined
  const { url } = await kernel.listen(0, '127.0.0.1')
  return {
    url,
    kernel,
    ...(logFile === undefined ? {} : { logFile }),
    async close() {
      await kernel.close()
      await db.drop()
      if (logFile !== undefined) rmSync(logFile, { force: true })
    },
  }
}

/** A fresh context (own storage and cookies) and page; page errors are collected, not thrown. */
export async function newPage(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext(options)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  return { context, page, problems }
}

/**
 * Runs `body` with a fresh context and page (`newPage`), closing the context whatever happens.
 * `timeout` sets the page's default wait (Playwright's own 30 s otherwise).
 */
export async function withPage<T>(
  browser: Browser,
  body: (page: Page, problems: string[], context: BrowserContext) => Promise<T>,
  options: { context?: Parameters<Browser['newContext']>[0]; timeout?: number } = {},
): Promise<T> {
  const { context, page, problems } = await newPage(browser, options.context)
  if (options.timeout !== undefined) page.setDefaultTimeout(options.timeout)
  try {
    return await body(page, problems, context)
  } finally {
    await context.close()
  }
}

/** What a {@link browserSuite}'s tests get. */
export interface BrowserSuite {
  readonly browser: Browser
  readonly pg: Playground
}

/**
 * A suite with Chromium launched and the playground started (`start`, by default
 * `startPlayground()`) at once before its tests, and whatever of them started closed after them.
 * A suite needing more adds its own hooks, which run after these.
 */
export function browserSuite<Extra extends object = object>(
  name: string,
  start: () => Promise<Playground> = () => startPlayground(),
): Test<BrowserSuite & Extra> {
  const test = suite<BrowserSuite & Extra>(name)
  test.before(async (context) => {
    const [browser, pg] = await Promise.allSettled([launchBrowser(), start()])
    Object.assign(context, {
      browser: browser.status === 'fulfilled' ? browser.value : undefined,
      pg: pg.status === 'fulfilled' ? pg.value : undefined,
    })
    for (const r of [browser, pg]) if (r.status === 'rejected') throw r.reason
  })
  test.after(async (context: Partial<BrowserSuite>) => {
    await Promise.all([context.browser?.close(), context.pg?.close()])
  })
  return test
}

/** Saves a screenshot under test/browser/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

/** Signs in through the playground's /login form and lands on `returnTo`. */
export async function signIn(
  page: Page,
  url: string,
  returnTo = '/products',
  user = 'admin',
  password = 'admin-pass',
): Promise<void> {
  await page.goto(`${url}/login?return=${encodeURIComponent(returnTo)}`)
  await page.fill('input[name="username"]', user)
  await page.fill('input[name="password"]', password)
  await Promise.all([
    page.waitForURL((u) => u.pathname === returnTo),
    page.click('form [type="submit"], form button'),
  ])
}
