// Does one slow statement on the embedded database stall the server? The playground on
// `pglite://memory` (production, `fw serve`), once with PGlite in a worker thread (the default,
// `database.pglite_worker: true`) and once in the main thread (`false`, the adapter before), in
// the same run. For each: `GET /_demo/ping` (no database) sampled every 100 ms while 4 clients
// loop over the worst-case public search (`GET /products/table?search[value]=` + `_%` × 3,500),
// and as a control while they loop over `search[value]=lamp`: p50 and max of the ping. Then the
// throughput of `GET /api/v1/products/{id}` (bench/products.ts's load, 50 connections), the two
// modes interleaved over the rounds. Target: ping p50 < 50 ms during the worst case in the worker
// mode; worker throughput ≥ 0.9× the main-thread one.
// Run: node --import tsx -C fw-source bench/pglite-stall.ts
//      FW_BENCH_STALL_SECONDS=<s> (each ping phase, default 6), FW_BENCH_STALL_ROUNDS=<n> (default 2)
import { fwCommand, get, startFw, firstOk, type FwChild } from './lib/playground-child.js'
import { loadProducts, PRODUCT_COUNT, PRODUCT_HEADERS } from './lib/product-load.js'
import { formatInt, formatRatio, median, sleep } from './lib/stats.js'

const SECONDS = Number(process.env.FW_BENCH_STALL_SECONDS ?? 6)
const ROUNDS = Number(process.env.FW_BENCH_STALL_ROUNDS ?? 2)
const SEARCHERS = 4
const XHR = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' }
const WORST = '_%'.repeat(3500)

const MODES = { worker: true, main: false } as const
type Mode = keyof typeof MODES

async function start(mode: Mode): Promise<{ child: FwChild; url: string }> {
  const child = startFw({
    name: `playground (PGlite, ${mode} thread)`,
    command: fwCommand(),
    env: {
      DATABASE_URL: 'pglite://memory',
      NODE_ENV: 'production',
      FW_CONFIG: JSON.stringify({ database: { pglite_worker: MODES[mode] } }),
    },
  })
  const { url } = await child.listening(180_000)
  // Seeded once product 1000 answers.
  await firstOk(`${url}/api/v1/products/${PRODUCT_COUNT}`, PRODUCT_HEADERS, 180_000, 100)
  return { child, url }
}

/** Ping latencies (ms) while `SEARCHERS` clients loop over a search for `term`. */
async function pingsDuring(url: string, term: string): Promise<number[]> {
  let searching = true
  const search = `${url}/products/table?draw=1&start=0&length=10&search[value]=${encodeURIComponent(term)}`
  const searchers = Array.from({ length: SEARCHERS }, async () => {
    let answered = 0
    while (searching) {
      await get(search, XHR, 60_000).catch(() => undefined)
      answered++
    }
    return answered
  })
  await sleep(300) // the searches are under way
  const pings: number[] = []
  const until = performance.now() + SECONDS * 1000
  while (performance.now() < until) {
    const sent = performance.now()
    const res = await get(`${url}/_demo/ping`, {}, 60_000)
    if (res.status !== 200) throw new Error(`ping answered ${res.status}`)
    pings.push(performance.now() - sent)
    await sleep(100)
  }
  searching = false
  await Promise.all(searchers)
  return pings
}

function summary(pings: readonly number[]): string {
  return `p50 ${median(pings).toFixed(1)} ms, max ${Math.max(...pings).toFixed(1)} ms (${pings.length} pings)`
}

async function main(): Promise<void> {
  const servers = {} as Record<Mode, { child: FwChild; url: string }>
  for (const mode of Object.keys(MODES) as Mode[]) servers[mode] = await start(mode)
  try {
    for (const mode of Object.keys(MODES) as Mode[]) {
      const { url } = servers[mode]
      console.log(
        `${mode} thread, ping during 4 × worst-case search: ${summary(await pingsDuring(url, WORST))}`,
      )
      console.log(
        `${mode} thread, ping during 4 × "lamp" (control): ${summary(await pingsDuring(url, 'lamp'))}`,
      )
    }
    const rps: Record<Mode, number[]> = { worker: [], main: [] }
    let offset = 0
    for (let round = 0; round < ROUNDS; round++) {
      const order: Mode[] = round % 2 === 0 ? ['main', 'worker'] : ['worker', 'main']
      for (const mode of order) {
        const url = servers[mode].url
        await loadProducts(`${mode} warm-up`, { url, connections: 50, seconds: 2, offset })
        const result = await loadProducts(mode, { url, connections: 50, seconds: 5, offset })
        offset += result.requests.total
        rps[mode].push(result.requests.average)
        console.log(
          `round ${round + 1} ${mode} thread: ${formatInt(result.requests.average)} req/s`,
        )
      }
    }
    const ratios = rps.worker.map((w, i) => w / rps.main[i]!)
    console.log(
      `GET /api/v1/products/{id} req/s: worker ${formatInt(median(rps.worker))}, main ${formatInt(median(rps.main))}, worker/main ${formatRatio(median(ratios))} (target ≥ 0.90)`,
    )
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.child.stop()))
  }
}

await main()
