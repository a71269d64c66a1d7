// The app the jobs suites run as `fw work` / `fw serve` child processes (FW_APP). Every job records
// each attempt in `job_runs` (which process ran which job, when), so a suite counts runs across
// processes in the database itself. JOBS_TEST_SCHEDULE=1 schedules `t.tick` every minute.
import { tmpdir } from 'node:os'
import { createKernel, type AppOptions } from 'fw'
import database, { defineMigration } from 'fw/plugins/database'
import health from 'fw/plugins/health'
import jobs, { defineJob, type JobRun } from 'fw/plugins/jobs'

const runsTable = defineMigration({
  name: '20261129000001_job_runs',
  up: [
    `create table job_runs (id serial primary key, job_id uuid not null, name text not null,
      n integer, attempt integer not null, pid integer not null, at timestamptz not null default now())`,
  ],
  down: ['drop table job_runs'],
})

async function recordRun(run: JobRun, n: number | undefined): Promise<void> {
  if (process.env.JOBS_TEST_ECHO === '1')
    process.stdout.write(`ran ${run.name} ${n ?? '-'} attempt ${run.attempt}\n`)
  const db = run.context.kernel.plugin('database')
  await db.sql`insert into job_runs (job_id, name, n, attempt, pid)
    values (${run.id}, ${run.name}, ${n ?? null}, ${run.attempt}, ${process.pid})`
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(signal.reason as Error)
    })
  })

export const noop = defineJob('t.noop', {
  concurrency: 20,
  handler: (payload: { n: number }, run) => recordRun(run, payload.n),
})

/**
 * Waits `ms` (`retryMs` on a later attempt, when given), or until aborted, then records: a job a
 * stop can catch running, whose retry need not wait as long.
 */
export const slow = defineJob('t.slow', {
  retries: 3,
  handler: async (payload: { n: number; ms: number; retryMs?: number }, run) => {
    if (process.env.JOBS_TEST_ECHO === '1')
      process.stdout.write(`started ${run.name} ${payload.n} attempt ${run.attempt}\n`)
    await wait(run.attempt === 1 ? payload.ms : (payload.retryMs ?? payload.ms), run.signal)
    await recordRun(run, payload.n)
  },
})

/** Its first attempt hangs past any test; the next one records: a job whose worker is killed. */
export const once = defineJob('t.once', {
  timeout: 3,
  retries: 2,
  handler: async (payload: { n: number }, run) => {
    await recordRun(run, payload.n)
    if (run.attempt === 1) await wait(3_600_000, run.signal)
  },
})

export const tick = defineJob('t.tick', {
  handler: (_payload: Record<string, never>, run) => recordRun(run, new Date().getUTCMinutes()),
})

export default ({ env = process.env, root = tmpdir() }: AppOptions = {}) => {
  const kernel = createKernel({
    root,
    env,
    // Ticks sent within a second of their minute: the schedule suite waits for two.
    config: { jobs: { poll_interval: 1, maintenance_interval: 1, cron_interval: 1 } },
  })
  kernel.register(database, { entities: [], migrations: [runsTable] })
  // `fw work --port` answers readiness probes through it.
  kernel.register(health)
  kernel.register(jobs, {
    jobs: [noop, slow, once, tick],
    schedules: env.JOBS_TEST_SCHEDULE === '1' ? [{ cron: '* * * * *', job: tick }] : [],
  })
  return kernel
}
