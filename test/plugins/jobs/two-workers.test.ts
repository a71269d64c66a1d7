// No job runs twice: 1,000 jobs taken by two `fw work` processes on one PostgreSQL database
// (pg-boss fetches with FOR UPDATE SKIP LOCKED), each run recorded in `job_runs` by the process
// that ran it. On PGlite (one process per database) the app's own worker runs them in process.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import appFactory, { noop } from './worker-app.js'
import { eventually, sleep } from './fixtures.js'
import { onPostgres } from '../../fixtures/on-postgres.js'
import { processDatabase, startFw, stopWorkers } from './worker-process.js'

const test = suite('jobs two workers')
const JOBS = 1000

test(`runs ${JOBS} jobs exactly once across two workers`, async () => {
  const db = await processDatabase()
  const url = onPostgres ? db.url : 'pglite://memory'
  const kernel = await appFactory({ env: { DATABASE_URL: url } })
  const workers: ReturnType<typeof startFw>[] = []
  try {
    await kernel.boot()
    const sql = kernel.plugin('database')
    await sql.prepare()
    const jobs = kernel.plugin('jobs')
    if (onPostgres) {
      for (let i = 0; i < 2; i++) workers.push(startFw(['work', '--queues', 't.noop'], url))
      await Promise.all(workers.map((w) => w.waitFor(/worker ready/)))
    } else await jobs.work({ queues: ['t.noop'] })
    await Promise.all(Array.from({ length: JOBS }, (_, n) => jobs.dispatch(noop, { n })))
    const counted = async () =>
      (await sql.sql<{ n: number }>`select count(*)::int as n from job_runs`)[0]!.n
    await eventually(`${JOBS} runs`, async () => (await counted()) >= JOBS, 120_000)
    await sleep(2000)
    const [totals] = await sql.sql<{ runs: number; jobs: number; ns: number }>`
      select count(*)::int as runs, count(distinct job_id)::int as jobs, count(distinct n)::int as ns
      from job_runs`
    assert.equal(totals, { runs: JOBS, jobs: JOBS, ns: JOBS })
    if (onPostgres) {
      const pids = await sql.sql<{ pid: number }>`select distinct pid from job_runs`
      assert.is(pids.length, 2, 'both workers ran jobs')
    }
  } finally {
    await stopWorkers(workers)
    await kernel.close()
    await db.drop()
  }
})

test.run()
