// The jobs plugin against pg-boss used directly, on PostgreSQL (DATABASE_URL), in this process:
//  1. Throughput of no-op jobs: per round, N jobs inserted (one multi-row insert, outside the
//     measurement), then the time from a worker's start until all ran: a pg-boss instance started
//     in the round with its own `work` loop (batches of BATCH) against the plugin's worker, also
//     started in the round (a job of concurrency BATCH: the same pg-boss loop, plus each run's
//     context, event log and per-job failure handling). Both open a fresh pool, as a worker
//     process does. Rounds interleaved; medians.
//     Each round also prints the process's CPU µs per job (`process.cpuUsage()`), the steadier
//     figure on a loaded machine.
//  2. The CPU a dispatch adds to a request: `kernel.inject` of a route that dispatches one job
//     against the same route without the dispatch, `process.cpuUsage()` per request, interleaved;
//     and, for reference, a route that calls pg-boss's own `send` (what a dispatch cannot avoid).
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
kernel.router.get('send', async () => ({ id: await boss.send('bench.direct', {}) }))
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

/** A round's figures: jobs/s, and the process's CPU µs per job. */
interface Round {
  readonly rate: number
  readonly cpu: number
}

/** Measures from `start` (a worker starting, N jobs waiting) until `done` resolves. */
async function measured(start: () => Promise<unknown>, done: Promise<void>): Promise<Round> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  await start()
  await done
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { rate: N / seconds, cpu: (used.user + used.system) / N }
}

/**
 * pg-boss's own loop over N no-op jobs, on an instance started in the round as the plugin's
 * worker starts its own (a fresh pool, its connections opened as the loop needs them).
 */
async function direct(): Promise<Round> {
  await insert('bench.direct', (i) => ({ i }))
  const worker = new PgBoss({ connectionString: db.url, schema: 'fw_jobs', migrate: false, max: 4 })
  let done = 0
  let id = ''
  let resolve: () => void = () => undefined
  const all = new Promise<void>((r) => (resolve = r))
  // As the plugin does: a full batch fetches again at once (`notifyWorker`).
  const options = { batchSize: BATCH, pollingIntervalSeconds: 1 }
  const round = await measured(async () => {
    await worker.start()
    id = await worker.work('bench.direct', options, async (js) => {
      done += js.length
      if (done >= N) resolve()
      if (js.length >= BATCH) worker.notifyWorker(id)
    })
  }, all)
  await worker.offWork('bench.direct')
  await worker.stop({ graceful: false, wait: true })
  return round
}

/** The plugin's worker, started in the round, over N no-op jobs. */
async function plugin(): Promise<Round> {
  await insert('bench.noop', (i) => ({ payload: { i } }))
  let done = 0
  let resolve: () => void = () => undefined
  const all = new Promise<void>((r) => (resolve = r))
  jobsInternals.get(api)!.observers.splice(0, Infinity, () => {
    if (++done >= N) resolve()
  })
  const round = await measured(() => api.work(), all)
  await api.stop(1000)
  return round
}

const rates = { direct: [] as number[], plugin: [] as number[] }
const jobCpu = { direct: [] as number[], plugin: [] as number[] }
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of [
    ['direct', direct],
    ['plugin', plugin],
  ] as const) {
    const { rate, cpu } = await run()
    rates[name].push(rate)
    jobCpu[name].push(cpu)
  }
}

/** CPU µs per request of `path`, over REQUESTS requests. */
async function cpuPerRequest(path: string): Promise<number> {
  const before = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i++) await kernel.inject(path)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / REQUESTS
}
const cpu = { plain: [] as number[], dispatch: [] as number[], send: [] as number[] }
for (const path of Object.keys(cpu)) await cpuPerRequest(`/${path}`) // warm every path
for (let round = 0; round < ROUNDS; round++)
  for (const [path, figures] of Object.entries(cpu)) figures.push(await cpuPerRequest(`/${path}`))

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
console.log(
  `  CPU µs per job: directly ${median(jobCpu.direct).toFixed(0)}, plugin ${median(jobCpu.plugin).toFixed(0)}`,
)
const added = median(cpu.dispatch) - median(cpu.plain)
const sendAlone = median(cpu.send) - median(cpu.plain)
console.log(`CPU per request (inject, ${REQUESTS} requests × ${ROUNDS} rounds):`)
console.log(`  without dispatch   ${median(cpu.plain).toFixed(1)} µs`)
console.log(`  with one dispatch  ${median(cpu.dispatch).toFixed(1)} µs`)
console.log(`  added by dispatch  ${added.toFixed(1)} µs (${(added / 1000).toFixed(3)} ms)`)
console.log(`  pg-boss send alone ${sendAlone.toFixed(1)} µs (the floor a dispatch builds on)`)

await boss.stop({ graceful: false, wait: true })
await kernel.close()
await db.drop()
