// Throughput through HAProxy before, during and after a rolling restart: three `fw serve` processes
// of one app (each with its own root, `NODE_ENV=production`, `--shutdown-delay 1`) on one
// PostgreSQL database of the benchmark's own, behind HAProxy configured as docs/deploying.md says
// (the set-up of test/e2e/rolling.test.ts, whose helpers it uses). Sixteen keep-alive clients loop
// `GET /db` (a `select 1` through the database plugin) through HAProxy: a warm-up, `before`, then
// `during` (instance 1 gets SIGTERM, exits, starts again on its port, HAProxy marks it UP, then
// instance 2, then 3), then `after`. Prints req/s of each phase, during/before (target ≥ 0.60),
// the failed requests (socket errors and non-200 answers; target 0; exits 1 otherwise), HAProxy's
// retries and redispatches, and what each step took.
// Run: npm run bench -- rolling
//      node --import tsx -C fw-source bench/rolling.ts --seconds 3 --clients 32 --pglite
//      --seconds <s> sets the before and after phases (default 5); --pglite runs the app without a
//      database (the route a plain one); FW_BENCH_POSTGRES_URL (or a postgresql:// DATABASE_URL)
//      names the PostgreSQL server whose database of its own it creates and drops.
import { existsSync } from 'node:fs'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { HAPROXY, startCluster, startLoad, type Cluster } from '../test/e2e/rolling-cluster.js'
import { formatInt } from './lib/stats.js'

const POSTGRES = /^postgres(ql)?:\/\//
const argv = process.argv.slice(2)

/** `--name <n>` or `--name=<n>`, a whole number of at least 1. */
function numberOption(name: string, fallback: number): number {
  let raw = String(fallback)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === `--${name}`) raw = argv[i + 1] ?? ''
    else if (arg.startsWith(`--${name}=`)) raw = arg.slice(name.length + 3)
  }
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    console.error(`rolling: --${name} must be a whole number, at least 1; got '${raw}'`)
    process.exit(2)
  }
  return Number(raw)
}

const seconds = numberOption('seconds', 5)
const clients = numberOption('clients', 16)
const pglite = argv.includes('--pglite')
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

if (!existsSync(HAPROXY)) {
  console.log(`rolling: skipped, ${HAPROXY} is missing (apt-get install -y haproxy)`)
  process.exit(0)
}

const postgresUrl =
  process.env.FW_BENCH_POSTGRES_URL ??
  (POSTGRES.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL : undefined) ??
  'postgresql://postgres@127.0.0.1:5432/test'

let db: TestDatabase | undefined
let cluster: Cluster | undefined
/** Failed requests, read after the cluster has stopped. */
const outcome = { failed: 0 }
try {
  db = pglite ? undefined : await createTestDatabase({ DATABASE_URL: postgresUrl })
  cluster = await startCluster({ count: 3, shutdownDelay: 1, databaseUrl: db?.url })
  console.log(
    `rolling: 3 × fw serve (${pglite ? 'no database' : 'PostgreSQL'}, --shutdown-delay 1) behind HAProxy, ${clients} keep-alive clients on GET ${cluster.path}`,
  )
  const load = startLoad(cluster.url, cluster.path, clients)
  const start = await cluster.counters()
  await sleep(3000)
  load.phase('before')
  await sleep(seconds * 1000)
  load.phase('during')
  const steps: string[] = []
  for (let i = 0; i < cluster.instances.length; i++) {
    const t = await cluster.restart(i)
    steps.push(
      `fw${i + 1}: exit ${t.exitCode} after ${Math.round(t.stop)} ms, started in ${Math.round(t.start)} ms, UP after ${Math.round(t.up)} ms more`,
    )
  }
  load.phase('after')
  await sleep(seconds * 1000)
  const phases = await load.stop()
  const end = await cluster.counters()
  const rate = (name: string): number => {
    const p = phases.get(name)!
    return p.ok / (p.ms / 1000)
  }
  for (const name of ['before', 'during', 'after']) {
    const p = phases.get(name)!
    console.log(
      `  ${name.padEnd(6)} ${formatInt(Math.round(rate(name))).padStart(7)} req/s  (${formatInt(p.ok)} in ${(p.ms / 1000).toFixed(1)} s, ${p.failed} failed)`,
    )
  }
  for (const step of steps) console.log(`  ${step}`)
  const failed = [...phases.values()].reduce((n, p) => n + p.failed, 0)
  outcome.failed = failed
  console.log(
    `  HAProxy: ${end.retries - start.retries} retries, ${end.redispatches - start.redispatches} redispatches, ${end.connectErrors - start.connectErrors} failed connects, ${end.http5xx - start.http5xx} 5xx`,
  )
  for (const f of load.failures) console.log(`  failed: ${f}`)
  console.log(
    `rolling: during/before = ${(rate('during') / rate('before')).toFixed(2)} (target ≥ 0.60); after/before = ${(rate('after') / rate('before')).toFixed(2)}; failed requests ${failed} (target 0)`,
  )
} finally {
  await cluster?.stop()
  await db?.drop()
}
if (outcome.failed > 0) process.exit(1)
