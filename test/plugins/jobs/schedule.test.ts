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
    // pg-boss's clock sends a minute's tick as a `__pgboss__send-it` job keyed by the minute; its
    // worker then sends `t.tick`. Counted from those rows rather than from the minute a run
    // happened in: a tick sent in the last second of a minute runs in the next one.
    const counts = async () => {
      const [row] = await sql.sql<{ minutes: number; sends: number; ticks: number; runs: number }>`
        with sent as (
          select singleton_on from fw_jobs.job
            where name = '__pgboss__send-it' and data->>'name' = 't.tick'
          union all
          select singleton_on from fw_jobs.archive
            where name = '__pgboss__send-it' and data->>'name' = 't.tick'),
        ticks as (
          select id from fw_jobs.job where name = 't.tick'
          union all select id from fw_jobs.archive where name = 't.tick')
        select (select count(distinct singleton_on)::int from sent) as minutes,
          (select count(*)::int from sent) as sends,
          (select count(*)::int from ticks) as ticks,
          (select count(*)::int from job_runs where name = 't.tick') as runs`
      return row!
    }
    // Two minutes' ticks (the minute the clocks started in, and the next one), each sent once and
    // run once: more sends, jobs or runs than minutes never settles.
    await eventually(
      'two ticks, each run once',
      async () => {
        const c = await counts()
        return (
          c.minutes >= 2 && c.sends === c.minutes && c.ticks === c.minutes && c.runs === c.ticks
        )
      },
      150_000,
    ).catch((error: Error) =>
      counts().then((c) => assert.unreachable(`${error.message}: ${JSON.stringify(c)}`)),
    )
    await sleep(3000)
    const twice = await sql.sql`
      select job_id from job_runs where name = 't.tick' group by job_id having count(*) > 1`
    assert.equal(twice, [], 'no tick ran twice')
  } finally {
    await stopWorkers(workers)
    await kernel.close()
    await db.drop()
  }
})

test.run()
