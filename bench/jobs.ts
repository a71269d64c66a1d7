// The jobs plugin against pg-boss used directly, on PostgreSQL (DATABASE_URL), in this process:
//  1. Throughput of no-op jobs: per round, N jobs inserted (one multi-row insert, outside the
//     measurement), then the time until all ran: pg-boss's own `work` loop (batches of BATCH)
//     against the plugin's worker (a job of concurrency BATCH: the same pg-boss loop, plus each
//     run's context, event log and per-job failure handling). Rounds interleaved; medians.
//  2. The CPU a dispatch adds to a request: `kernel.inject` of a route that dispatches one job
//     against the same route without the dispatch, `process.cpuUsage()` per request, interleaved.
// Run: DATABASE_URL=postgresql://… node --import tsx -C fw-source bench/jobs.ts
//      FW_BENCH_JOBS (default 5000), FW_BENCH_ROUNDS (default 3), FW_BENCH_REQUESTS (default 2000).
import PgBoss from 'pg-boss'
import database, { createTestDatabase } from 'fw/plugins/database'
import jobs, { defineJob, jobsInternals } from 'fw/plugins/jobs'
import { createTestKernel } from 'fw/testing'
import { median, formatInt, formatRatio } from './lib/stats.js'

const N = Number(process.env.FW_BENCH_JOBS ?? 5000)
const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 3)
const REQUESTS = Number(process.env.FW_BENCH_REQUESTS ?? 2000)
const BATCH = 100

if (!/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')) {
  console.log('bench/jobs.ts measures on PostgreSQL: set DATABASE_URL=postgresql://…')
  process.exit(0)
}

const db = await createTestDatabase()
const noop = defineJob('bench.noop', { concurrency: BATCH, retries: 0, handler: () => undefined })
const kernel = createTestKernel({
  plugins: [
    [database, { url: db.url, entities: [] }],
    [jobs, { jobs: [noop] }],
  ],
  config: { jobs: { poll_interval: 1 } },
})
kernel.router.get('plain', () => ({ ok: true }))
kernel.router.get('dispatch', async () => ({ id: await kernel.plugin('jobs').dispatch(noop, {}) }))
await kernel.boot()
await kernel.plugin('database').prepare()
const api = kernel.plugin('jobs')
const boss = new PgBoss({ connectionString: db.url, schema: 'fw_jobs', migrate: false, max: 4 })
await boss.start()
await boss.createQueue('bench.direct')
// The plugin creates its job's queue when first used: before inserting into it.
await api.stats()

const insert = (name: string, data: (i: number) => object) =>
  boss.insert(Array.from({ length: N }, (_, i) => ({ name, data: data(i) })))

/** Jobs/s of pg-boss's own loop over N no-op jobs. */
async function direct(): Promise<number> {
  await insert('bench.direct', (i) => ({ i }))
  let done = 0
  let id = ''
  const started = performance.now()
  await new Promise<void>((resolve) => {
    // As the plugin does: a full batch fetches again at once (`notifyWorker`).
    const options = { batchSize: BATCH, pollingIntervalSeconds: 1 }
    void boss
      .work('bench.direct', options, async (js) => {
        done += js.length
        if (done >= N) resolve()
        if (js.length >= BATCH) boss.notifyWorker(id)
      })
      .then((workerId) => (id = workerId))
  })
  const seconds = (performance.now() - started) / 1000
  await boss.offWork('bench.direct')
  return N / seconds
}

/** Jobs/s of the plugin's worker over N no-op jobs. */
async function plugin(): Promise<number> {
  await insert('bench.noop', (i) => ({ payload: { i } }))
  let done = 0
  let resolve: () => void = () => undefined
  const all = new Promise<void>((r) => (resolve = r))
  jobsInternals.get(api)!.observers.splice(0, Infinity, () => {
    if (++done >= N) resolve()
  })
  const started = performance.now()
  await api.work()
  await all
  const seconds = (performance.now() - started) / 1000
  await api.stop(1000)
  return N / seconds
}

const rates = { direct: [] as number[], plugin: [] as number[] }
for (let round = 0; round < ROUNDS; round++) {
  rates.direct.push(await direct())
  rates.plugin.push(await plugin())
}

/** CPU µs per request of `path`, over REQUESTS requests. */
async function cpuPerRequest(path: string): Promise<number> {
  const before = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i++) await kernel.inject(path)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / REQUESTS
}
const cpu = { plain: [] as number[], dispatch: [] as number[] }
await cpuPerRequest('/dispatch') // warm both paths
await cpuPerRequest('/plain')
for (let round = 0; round < ROUNDS; round++) {
  cpu.plain.push(await cpuPerRequest('/plain'))
  cpu.dispatch.push(await cpuPerRequest('/dispatch'))
}

const d = median(rates.direct)
const p = median(rates.plugin)
console.log(`no-op jobs/s, ${N} jobs, batches of ${BATCH}, PostgreSQL:`)
console.log(
  `  pg-boss directly   ${formatInt(d)}  (rounds: ${rates.direct.map(formatInt).join(', ')})`,
)
console.log(
  `  jobs plugin        ${formatInt(p)}  (rounds: ${rates.plugin.map(formatInt).join(', ')})`,
)
console.log(`  ratio plugin/direct ${formatRatio(p / d)}`)
const added = median(cpu.dispatch) - median(cpu.plain)
console.log(`CPU per request (inject, ${REQUESTS} requests × ${ROUNDS} rounds):`)
console.log(`  without dispatch   ${median(cpu.plain).toFixed(1)} µs`)
console.log(`  with one dispatch  ${median(cpu.dispatch).toFixed(1)} µs`)
console.log(`  added by dispatch  ${added.toFixed(1)} µs (${(added / 1000).toFixed(3)} ms)`)

await boss.stop({ graceful: false, wait: true })
await kernel.close()
await db.drop()
