// /health/status under load (autocannon, 100 connections) against the kernel's plain JSON route,
// both served by one fw kernel in a child process (this same file, run with FW_BENCH_HEALTH_CHILD)
// with the health plugin and a database check (PGlite in memory, or PostgreSQL with DATABASE_URL).
// Target: health/plain ≥ 0.8. It also counts the database probes and prints them against the
// reuse windows the run spanned: at most one probe per window.
// Run: node --import tsx -C fw-source bench/health.ts
import autocannon from 'autocannon'
import { fileURLToPath } from 'node:url'
import { createKernel, silentLogger } from 'fw'
import database from 'fw/plugins/database'
import health, { databaseCheck } from 'fw/plugins/health'
import { spawnServer, type ServerChild } from './lib/child-server.js'
import { announce } from './lib/server-ipc.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const TARGET = 0.8
const CONNECTIONS = 100
const SECONDS = Number(process.env.FW_BENCH_HEALTH_SECONDS ?? 5)
const ROUNDS = 2
const REUSE_MS = 1000

async function child(): Promise<void> {
  const kernel = createKernel({ logger: silentLogger, env: {}, root: '/tmp' })
  kernel
    .register(database, {
      url: process.env.DATABASE_URL ?? 'pglite://memory',
      entities: [],
      prepareOnListen: false,
    })
    .register(health, { reuseMs: REUSE_MS, memoryLimit: false, diskSpace: false })
  let probes = 0
  kernel.hooks.boot.tapPromise('bench', async () => {
    const check = databaseCheck(kernel)
    kernel.plugin('health').register({ name: 'database', run: () => (probes++, check.run()) })
  })
  kernel.router.get('ping', () => ({ hello: 'world', n: 1 }))
  kernel.router.get('_bench/probes', () => ({ probes, runs: kernel.plugin('health').runs }))
  await kernel.boot()
  await kernel.plugin('database').ready()
  const { port } = await kernel.listen(0, '127.0.0.1')
  announce(port, () => void kernel.close(100))
}

async function load(server: ServerChild, path: string, seconds: number): Promise<number> {
  const result = await autocannon({
    url: server.url + path,
    connections: CONNECTIONS,
    duration: seconds,
  })
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0)
    throw new Error(
      `${path}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    )
  return result.requests.total / result.duration
}

async function probes(server: ServerChild): Promise<number> {
  return ((await (await fetch(`${server.url}/_bench/probes`)).json()) as { probes: number }).probes
}

async function main(): Promise<void> {
  const db = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'
  console.log(
    `health: ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per route, database check on ${db}, reuse window ${REUSE_MS} ms`,
  )
  const server = await spawnServer(
    'health',
    ['--import', 'tsx', '-C', 'fw-source', fileURLToPath(import.meta.url)],
    30_000,
    { FW_BENCH_HEALTH_CHILD: '1' },
  )
  try {
    const status = await fetch(`${server.url}/health/status`)
    const body = (await status.json()) as { status: string }
    if (status.status !== 200 || body.status !== 'healthy')
      throw new Error(`/health/status answered ${status.status} ${JSON.stringify(body)}`)
    await load(server, '/ping', 1)
    await load(server, '/health/status', 1)
    const plain: number[] = []
    const healthRps: number[] = []
    let windowsSpanned = 0
    let probed = 0
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? ['/ping', '/health/status'] : ['/health/status', '/ping']
      for (const path of order) {
        const before = await probes(server)
        const started = performance.now()
        const rps = await load(server, path, SECONDS)
        const wall = performance.now() - started
        const during = (await probes(server)) - before
        if (path === '/ping') plain.push(rps)
        else {
          healthRps.push(rps)
          windowsSpanned += Math.ceil(wall / REUSE_MS) + 1
          probed += during
        }
        console.log(
          `  round ${round}  ${path.padEnd(15)} ${formatInt(rps).padStart(8)} req/s${path === '/ping' ? '' : `   database probes ${during} in ${(wall / 1000).toFixed(1)} s`}`,
        )
      }
    }
    const ratio = median(healthRps) / median(plain)
    console.log(
      `health: /health/status / plain JSON = ${formatRatio(ratio)} (target ≥ ${TARGET}) health=${formatInt(median(healthRps))}/s plain=${formatInt(median(plain))}/s; ` +
        `database probes ${probed} for at most ${windowsSpanned} reuse windows (${probed <= windowsSpanned ? 'ok' : 'TOO MANY'})`,
    )
    if (probed > windowsSpanned) throw new Error('more than one database probe per reuse window')
  } finally {
    await server.stop()
  }
}

if (process.env.FW_BENCH_HEALTH_CHILD === '1') await child()
else await main()
