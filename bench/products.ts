// `GET /api/v1/products/{id}` through the whole stack: the playground served by `fw serve`
// (production, one process: kernel, api middleware group, route binding through MikroORM, the
// request-scoped EntityManager, query and model events, toData(), JSON) against bare polka with a
// `pg.Pool` running the same SELECT and answering the same JSON. Same run, same database: a fresh
// PostgreSQL database of its own, migrated and seeded by starting the playground on it once.
// Each server in its own child process, autocannon in this one, ids spread over 1…1000; 3 s
// warm-up each (fw's first seconds cost ~3× its steady state: JIT), then 3 rounds of 5 s
// alternating the order. Prints req/s, medians, fw/baseline (the median of the rounds' ratios;
// target ≥ 0.70) and the server's CPU time per request.
// Run: node --import tsx -C fw-source bench/products.ts
//      FW_BENCH_PRODUCTS_SECONDS=<s> FW_BENCH_PRODUCTS_ROUNDS=<n> change the measured time and rounds.
import { startBaseline } from './lib/baseline-server.js'
import type { ServerChild } from './lib/child-server.js'
import { measureLoad, type LoadRun } from './lib/ping-load.js'
import { fwCommand, get, type FwChild } from './lib/playground-child.js'
import {
  checkProduct,
  loadProducts,
  PRODUCT_HEADERS,
  seededDatabase,
  servePlaygroundOn,
} from './lib/product-load.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const TARGET = 0.7
const SECONDS = Number(process.env.FW_BENCH_PRODUCTS_SECONDS ?? 5)
const ROUNDS = Number(process.env.FW_BENCH_PRODUCTS_ROUNDS ?? 3)
const WARMUP_SECONDS = 3
const CONNECTIONS = 50
/** Below this share of a core, a server was not what limited the request rate. */
const SATURATED = 0.85

/** What both servers offer the benchmark. */
interface Server {
  readonly name: string
  readonly url: string
  cpu(): Promise<{ user: number; system: number }>
}

interface Run extends LoadRun {
  readonly latencyMs: number
}

/** Both servers answer the same product the same way (ids at both ends and in the middle). */
async function check(fw: Server, baseline: Server): Promise<void> {
  for (const id of [1, 2, 500, 999, 1000]) {
    const [a, b] = await Promise.all(
      [fw, baseline].map((s) => get(`${s.url}/api/v1/products/${id}`, PRODUCT_HEADERS)),
    )
    for (const [server, res] of [
      [fw, a!],
      [baseline, b!],
    ] as const) {
      if (res.status !== 200)
        throw new Error(
          `${server.name}: product ${id} answered ${res.status} ${res.body.slice(0, 300)}`,
        )
    }
    const one = checkProduct(fw.name, id, a!.body)
    const two = checkProduct(baseline.name, id, b!.body)
    if (
      JSON.stringify(one, Object.keys(one).sort()) !== JSON.stringify(two, Object.keys(two).sort())
    ) {
      throw new Error(
        `the servers disagree on product ${id}:\n  ${fw.name}: ${a!.body}\n  ${baseline.name}: ${b!.body}`,
      )
    }
    if (a!.body !== b!.body)
      console.log(`  note: same data, different bytes for product ${id} (key order)`)
  }
}

async function load(server: Server, seconds: number, offset: number): Promise<Run> {
  const { run, result } = await measureLoad(server, () =>
    loadProducts(server.name, { url: server.url, connections: CONNECTIONS, seconds, offset }),
  )
  return { ...run, latencyMs: result.latency.p50 }
}

function describe(name: string, run: Run): string {
  const pct = (share: number): string => `${Math.round(share * 100)}%`.padStart(4)
  return (
    `${name.padEnd(8)} ${formatInt(run.rps).padStart(7)} req/s  p50 ${run.latencyMs.toFixed(0).padStart(3)} ms  server ${run.cpuPerRequest.toFixed(0).padStart(4)} µs CPU/req, ` +
    `${pct(run.serverCpu)} of a core   load generator ${pct(run.loadgenCpu)}`
  )
}

async function main(): Promise<void> {
  const command = fwCommand()
  console.log(
    `products: GET /api/v1/products/{1…1000}, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ${ROUNDS} × ${SECONDS} s per server, PostgreSQL on 127.0.0.1`,
  )
  console.log(`  fw: ${command.note}`)
  console.log(
    `  polka+pg: ${command.built ? 'bundled with esbuild, plain node (as fw runs built)' : 'through tsx (as fw)'}; the same SQL text as MikroORM sends (id inline, simple protocol)`,
  )
  const seedStart = performance.now()
  const db = await seededDatabase(command)
  console.log(
    `  database of its own, migrated and seeded by the playground in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  )
  let playground: FwChild | undefined
  let baselineChild: ServerChild | undefined
  try {
    playground = servePlaygroundOn(db, command)
    const { url } = await playground.listening()
    const fw: Server = { name: 'fw', url, cpu: () => playground!.cpu() }
    baselineChild = await startBaseline('polka+pg', './server-products-pg.ts', command.built, {
      DATABASE_URL: db.url,
    })
    const baseline: Server = baselineChild
    await check(fw, baseline)
    const servers = [baseline, fw]
    let offset = 0
    for (const server of servers) {
      await load(server, WARMUP_SECONDS, offset)
      offset += 100_000
    }
    const runs: Record<string, Run[]> = { fw: [], 'polka+pg': [] }
    /** fw/baseline per round: the two runs of a round are back to back, so a slow spell of the
     * shared machine tends to hit both; the median of these is the headline figure. */
    const ratios: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? servers : [...servers].reverse()
      for (const server of order) {
        const run = await load(server, SECONDS, offset)
        offset += 100_000
        runs[server.name]!.push(run)
        console.log(`  round ${round}  ${describe(server.name, run)}`)
      }
      ratios.push(runs.fw!.at(-1)!.rps / runs['polka+pg']!.at(-1)!.rps)
      console.log(`  round ${round}  fw/polka+pg ${formatRatio(ratios.at(-1)!)}`)
    }
    const rps = (n: string): number => median(runs[n]!.map((r) => r.rps))
    const cpu = (n: string): number => median(runs[n]!.map((r) => r.cpuPerRequest))
    for (const n of ['polka+pg', 'fw']) {
      console.log(
        `  median ${n.padEnd(8)} ${formatInt(rps(n)).padStart(7)} req/s (${cpu(n).toFixed(0)} µs CPU/req)`,
      )
    }
    const busiest = Math.min(...servers.map((s) => median(runs[s.name]!.map((r) => r.serverCpu))))
    if (busiest < SATURATED) {
      console.log(
        `  note: a server used only ${Math.round(busiest * 100)}% of a core (median): PostgreSQL and the load generator share the 2 cores, so req/s depends on them too; the CPU ratio is what the req/s ratio tends to when the server is the bottleneck`,
      )
    }
    console.log(
      `products: fw/polka+pg = ${formatRatio(median(ratios))} (target ≥ ${TARGET}; median of the rounds' ratios, ratio of the medians ${formatRatio(rps('fw') / rps('polka+pg'))}) fw=${formatInt(rps('fw'))}/s polka+pg=${formatInt(rps('polka+pg'))}/s; ` +
        `CPU/req fw=${cpu('fw').toFixed(0)} µs polka+pg=${cpu('polka+pg').toFixed(0)} µs (polka+pg/fw = ${formatRatio(cpu('polka+pg') / cpu('fw'))})`,
    )
  } finally {
    await Promise.all([playground?.stop(), baselineChild?.stop()])
    await db.drop()
  }
}

await main()
