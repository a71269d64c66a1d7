// A soak: the playground under `fw serve` (production, one process, PostgreSQL) loaded for 60 s by
// 256 connections with the mix a real client sends: `/_demo/ping`, `/api/v1/products/{id}` and
// `/api/v1/products?per_page=10` with the demo API key, and `/health/status`. Prints req/s,
// non-2xx and 5xx answers, socket errors, timeouts, p50/p99 latency, the server's RSS before and
// after, and its CPU time per request. No baseline: what it measures is that nothing fails; it exits
// 1 on any socket error, timeout or non-2xx answer (target: 0 of each).
// Run: npm run bench -- soak                      (60 s)
//      node --import tsx -C fw-source bench/soak.ts --duration 10
//      FW_BENCH_SOAK_SECONDS=<s> sets the duration too; FW_BENCH_POSTGRES_URL (or a postgresql://
//      DATABASE_URL) names the PostgreSQL server whose database of its own it creates and drops.
import autocannon from 'autocannon'
import { fwCommand, get, type FwChild } from './lib/playground-child.js'
import { formatInt } from './lib/stats.js'

const CONNECTIONS = 256
const POSTGRES = /^postgres(ql)?:\/\//
if (
  process.env.FW_BENCH_POSTGRES_URL === undefined &&
  POSTGRES.test(process.env.DATABASE_URL ?? '')
)
  process.env.FW_BENCH_POSTGRES_URL = process.env.DATABASE_URL
// Read after the line above: product-load picks the PostgreSQL server when it is loaded.
const { PRODUCT_HEADERS, productPath, seededDatabase, servePlaygroundOn } =
  await import('./lib/product-load.js')

/** `--duration <s>` (or `--duration=<s>`), else FW_BENCH_SOAK_SECONDS, else 60. */
function duration(argv: readonly string[]): number {
  let raw = process.env.FW_BENCH_SOAK_SECONDS ?? '60'
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--duration') raw = argv[i + 1] ?? ''
    else if (arg.startsWith('--duration=')) raw = arg.slice('--duration='.length)
  }
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    console.error(`soak: --duration must be a whole number of seconds, at least 1; got '${raw}'`)
    process.exit(2)
  }
  return Number(raw)
}

/** The routes of the mix, in the order each connection takes them. */
interface Route {
  readonly name: string
  path(i: number): string
  readonly headers: Readonly<Record<string, string>>
}
const JSON_ONLY = { accept: 'application/json' }
const ROUTES: readonly Route[] = [
  { name: 'GET /_demo/ping', path: () => '/_demo/ping', headers: JSON_ONLY },
  { name: 'GET /api/v1/products/{id}', path: (i) => productPath(i), headers: PRODUCT_HEADERS },
  {
    name: 'GET /api/v1/products?per_page=10',
    path: (i) => `/api/v1/products?per_page=10&page=${(i % 100) + 1}`,
    headers: PRODUCT_HEADERS,
  },
  { name: 'GET /health/status', path: () => '/health/status', headers: JSON_ONLY },
]

/** Every route answers 200 before the load starts (a misconfigured mix is not a soak). */
async function check(url: string): Promise<void> {
  for (const route of ROUTES) {
    const res = await get(url + route.path(0), route.headers)
    if (res.status !== 200)
      throw new Error(`${route.name} answered ${res.status}: ${res.body.slice(0, 300)}`)
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`

async function main(): Promise<number> {
  const seconds = duration(process.argv.slice(2))
  const command = fwCommand()
  console.log(
    `soak: ${seconds} s, ${CONNECTIONS} connections, mix of ${ROUTES.map((r) => r.name).join(', ')}; PostgreSQL on 127.0.0.1`,
  )
  console.log(`  fw: ${command.note}`)
  const db = await seededDatabase(command)
  let server: FwChild | undefined
  try {
    server = servePlaygroundOn(db, command)
    const { url } = await server.listening()
    await check(url)
    const rssBefore = (await server.memory()).rss
    const cpuBefore = await server.cpu()
    let n = 0
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      autocannon(
        {
          url,
          connections: CONNECTIONS,
          pipelining: 1,
          duration: seconds,
          requests: [
            {
              setupRequest: (req) => {
                const i = n++
                const route = ROUTES[i % ROUTES.length]!
                return { ...req, path: route.path(i >> 2), headers: { ...route.headers } }
              },
            },
          ],
        },
        (error: unknown, res: autocannon.Result) => (error ? reject(error as Error) : resolve(res)),
      )
    })
    const cpuAfter = await server.cpu()
    const rssAfter = (await server.memory()).rss
    const total = result.requests.total
    const cpuPerRequest =
      (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / Math.max(1, total)
    const fivexx = result['5xx']
    const statuses = Object.entries(result.statusCodeStats ?? {})
      .map(([code, { count }]) => `${code}: ${formatInt(count ?? 0)}`)
      .join(', ')
    console.log(
      `  ${formatInt(total)} requests in ${result.duration.toFixed(1)} s: ${formatInt(total / result.duration)} req/s (${statuses})`,
    )
    console.log(
      `  non-2xx ${result.non2xx}, 5xx ${fivexx}, socket errors ${result.errors}, timeouts ${result.timeouts}, resets ${result.resets}`,
    )
    console.log(
      `  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    )
    console.log(
      `  server RSS ${mb(rssBefore)} before, ${mb(rssAfter)} after; ${cpuPerRequest.toFixed(0)} µs CPU per request`,
    )
    const failures = result.errors + result.timeouts + result.non2xx
    if (failures > 0) {
      console.error(
        `soak: FAILED: ${result.errors} socket errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx (${fivexx} 5xx); server output:\n${server.output().slice(-4000)}`,
      )
      return 1
    }
    console.log('soak: 0 errors, 0 timeouts, 0 non-2xx')
    return 0
  } finally {
    await server?.stop()
    await db.drop()
  }
}

process.exitCode = await main()
