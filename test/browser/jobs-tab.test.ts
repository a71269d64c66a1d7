// The toolbar's Jobs tab in Chromium: a page's request dispatches a background job (one that runs
// a statement and logs a line), and a second one a job that fails; selecting each request lists the
// job it dispatched, and opening its runs shows the run's events, its SQL and its failure.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Browser } from 'playwright-core'
import { createKernel, empty, html, type Kernel } from 'fw'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import debug from 'fw/plugins/debug'
import jobs, { defineJob, jobsInternals } from 'fw/plugins/jobs'
import logging from 'fw/plugins/logging'
import { createMemoryLogger } from 'fw/testing'
import { eventually } from '../plugins/jobs/fixtures.js'
import { launchBrowser, newPage, screenshot } from './harness.js'
import { openTab, pickRequest, tab, tableRows, waitForRows } from './toolbar.js'

const receipt = defineJob('shop.receipt', {
  retries: 0,
  handler: async (payload: { order: number }, run) => {
    await run.context.kernel.plugin('database').sql`select ${payload.order}::int as receipt_for`
    run.context.kernel.logger.info('receipt sent')
    if (payload.order < 0) throw new Error('no such order')
  },
})

const PAGE =
  '<!doctype html><html><head><title>Orders</title></head><body><h1>Orders</h1></body></html>'

const test = suite<{ browser: Browser; kernel: Kernel; db: TestDatabase; url: string }>(
  'browser: jobs tab',
)

test.before(async (context) => {
  context.db = await createTestDatabase()
  const kernel = createKernel({
    logger: createMemoryLogger(),
    env: { FW_APP_KEY: 'browser-test-application-key-0123456789' },
    config: { development: true, features: ['debug'], jobs: { poll_interval: 1 } },
  })
  // Its lines are the runs' `log.written` events.
  kernel.register(logging, { destination: { write: () => undefined } })
  kernel.register(debug, {})
  kernel.register(database, { url: context.db.url, entities: [] })
  kernel.register(jobs, { jobs: [receipt] })
  kernel.router.get('', () => html(PAGE))
  // The browser asks for it: no 404 among the page's problems.
  kernel.router.get('favicon.ico', () => empty(204))
  kernel.router.post('order/{n}', async (ctx) => ({
    id: await ctx.kernel.plugin('jobs').dispatch(receipt, { order: Number(ctx.params.n) }),
  }))
  await kernel.boot()
  await kernel.plugin('database').prepare()
  context.kernel = kernel
  context.browser = await launchBrowser()
  context.url = (await kernel.listen(0, '127.0.0.1')).url
})
test.after(async ({ browser, kernel, db }) => {
  await browser?.close()
  await kernel?.close()
  await db?.drop()
})

test("a request's dispatched job is listed, and its runs show their events and SQL", async ({
  browser,
  kernel,
  url,
}) => {
  const api = kernel.plugin('jobs')
  let finished = 0
  jobsInternals.get(api)!.observers.push(() => void finished++)
  await api.work()
  const { context, page, problems } = await newPage(browser)
  await page.goto(url)
  // The page's own fetch (the toolbar wraps it): each request is a row.
  const order = (n: number) =>
    page.evaluate((n) => fetch(`/order/${n}`, { method: 'POST' }).then((r) => r.status), n)
  assert.is(await order(7), 200)
  await waitForRows(page, 2)
  assert.is(await order(-1), 200)
  await waitForRows(page, 3)
  await pickRequest(page, '/order/7')
  await tab(page, 'jobs').waitFor()
  assert.is(await tab(page, 'jobs').locator('.count').textContent(), '1')
  const panel = await openTab(page, 'jobs')
  const [cells = []] = await tableRows(panel, 'table.jobs')
  assert.is(cells[0], 'shop.receipt')
  assert.match(cells[1]!, /^[0-9a-f-]{36}$/)
  // The runs are read once the job ran (the worker polls every second).
  await eventually('both runs', () => finished === 2)
  await panel.locator('button.runs').click()
  const run = panel.locator(`section.job[data-job="${cells[1]}"] .job-run`)
  await run.waitFor()
  assert.match((await run.locator('p').textContent()) ?? '', /Attempt 1 · completed/)
  const events = await tableRows(run, 'table.job-events')
  assert.equal(
    events.map((e) => e[1]),
    ['job.started', 'query.executed', 'log.written', 'job.completed'],
  )
  assert.match(events[1]![2]!, 'receipt_for')
  assert.is(events[2]![2], 'info: receipt sent')
  await screenshot(page, 'jobs-tab')
  // The failed job's run shows its failure.
  await pickRequest(page, '/order/-1')
  const failedPanel = await openTab(page, 'jobs')
  await failedPanel.locator('button.runs').click()
  const failed = failedPanel.locator('.job-run')
  await failed.waitFor()
  assert.match((await failed.locator('p').textContent()) ?? '', /Attempt 1 · failed/)
  assert.match((await failed.locator('table.job-events').textContent()) ?? '', 'no such order')
  assert.equal(problems, [])
  await context.close()
})

test.run()
