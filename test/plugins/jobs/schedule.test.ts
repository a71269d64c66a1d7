// A schedule fires once per tick however many workers run it: three `fw work` processes on one
// PostgreSQL database each keep pg-boss's cron clock, and each minute's tick runs `t.tick` once.
// On PGlite (one process per database) the app's own worker keeps the clock in process.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import appFactory from './worker-app.js'
import { eventually, sleep } from './fixtures.js'
import { onPostgres } from '../../fixtures/on-postgres.js'
import { processDatabase, startFw, stopWorkers, type FwProcess } from './worker-process.js'

const test = suite('jobs schedule')

test('runs a scheduled job once per tick across workers', async () => {
  const db = await processDatabase()
  const url = onPostgres ? db.url : 'pglite://memory'
  const env = { DATABASE_URL: url, JOBS_TEST_SCHEDULE: '1' }
  const kernel = await appFactory({ env })
  const workers: FwProcess[] = []
  try {
    await kernel.boot()
    const sql = kernel.plugin('database')
    await sql.prepare()
    if (onPostgres) {
      for (let i = 0; i < 3; i++) workers.push(startFw(['work'], url, { JOBS_TEST_SCHEDULE: '1' }))
      await Promise.all(workers.map((w) => w.waitFor(/worker ready/)))
    } else await kernel.plugin('jobs').work()
    const ticks = async () =>
      sql.sql<{ minute: number; runs: number }>`
        select n as minute, count(*)::int as runs from job_runs where name = 't.tick'
        group by n order by min(at)`
    // Two ticks: the minute the clocks started in, and the next one.
    await eventually('two ticks', async () => (await ticks()).length >= 2, 150_000)
    await sleep(3000)
    const seen = await ticks()
    assert.ok(seen.length >= 2)
    assert.equal(
      seen.map((t) => t.runs),
      seen.map(() => 1),
      JSON.stringify(seen),
    )
  } finally {
    await stopWorkers(workers)
    await kernel.close()
    await db.drop()
  }
})

test.run()
