import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../../playground/app.js'
import { dashboardRows } from '../../../plugins/health/pages.js'

const test = suite('health in the playground')

test('the playground serves /health/check and renders its health templates', async () => {
  const kernel = createApp({
    env: { DATABASE_URL: 'pglite://memory', NODE_ENV: 'production' },
    logger: createMemoryLogger(),
  })
  try {
    // Open as `fw serve` has it open (at listen): the check measures a round trip, not the start.
    await kernel.boot()
    await kernel.plugin('database').prepare()
    const res = await kernel.inject('/health/check')
    const body = res.json() as { checks: Record<string, { status: string }> }
    assert.ok(['database', 'disk_space', 'memory_limit', 'cache'].every((n) => n in body.checks))
    assert.is(body.checks.database!.status, 'ok', JSON.stringify(body.checks.database))
    const views = kernel.plugin('views')
    const report = await kernel.plugin('health').run()
    const page = await views.render('health', {
      title: 'Health',
      service: 'playground',
      report,
      rows: dashboardRows(report),
      generated_at: 'now',
      user: 'ada',
    })
    assert.match(page, /fw playground/)
    assert.match(page, /memory_limit/)
    const info = await views.render('health-phpinfo', {
      title: 'Runtime',
      sections: [{ title: 'Versions', rows: [['node', process.version]] }],
    })
    assert.match(info, /Versions/)
  } finally {
    await kernel.close()
  }
})

test.run()
