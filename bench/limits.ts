// What a rate limit costs a route: `GET /limited/{id}` (the `limit:bench` middleware, counts in
// PostgreSQL: the busy key leases points, about one statement a second) against `GET /free/{id}` (the same handler, no limiter), both
// served by one `fw serve` process of bench/lib/limits-app.mjs (production) on a PostgreSQL
// database of the benchmark's own. The handler reads a row by id, as an API route does. Rounds
// alternate the routes' order; each figure is req/s and the server's CPU µs per request, and the
// headline is the median of the rounds' limited/free ratios. Target: ≥ 0.95 with the PostgreSQL
// store. `--store memory|redis` measures another store.
//
//   node --import tsx -C fw-source bench/limits.ts [--store database|memory|redis] [--rounds N] [--seconds S]
import autocannon from 'autocannon'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { startFw, type FwChild } from './lib/playground-child.js'
import { ownDatabase } from './lib/product-load.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? fallback : args[at + 1]!
}
const STORE = option('store', 'database')
const ROUNDS = Number(option('rounds', '5'))
const SECONDS = Number(option('seconds', '4'))
const CONNECTIONS = 32
const TARGET = 0.95
const APP = fileURLToPath(new URL('./lib/limits-app.mjs', import.meta.url))

interface Run {
  readonly rps: number
  readonly cpuPerRequest: number
}

/** One load of `route` for `seconds`: ids spread over 1…1000; throws on any error or non-2xx. */
async function load(child: FwChild, url: string, route: string, seconds: number): Promise<Run> {
  const before = await child.cpu()
  let n = 0
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, path: `/${route}/${(n++ % 1000) + 1}` }) }],
  })
  const after = await child.cpu()
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0)
    throw new Error(
      `${route}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    )
  const cpu = after.user + after.system - before.user - before.system
  return {
    rps: result.requests.total / result.duration,
    cpuPerRequest: cpu / result.requests.total,
  }
}

const db = await ownDatabase()
const child = startFw({
  name: 'limits',
  env: { DATABASE_URL: db.url, NODE_ENV: 'production', FW_APP: APP, FW_LIMITS_STORE: STORE },
  probe: true,
})
try {
  const { url } = await child.listening(120_000)
  for (const route of ['free', 'limited']) {
    const res = await fetch(`${url}/${route}/7`)
    const body = await res.text()
    if (res.status !== 200 || !body.includes('item 7'))
      throw new Error(`${route}: ${res.status} ${body}`)
    if ((route === 'limited') !== res.headers.has('ratelimit-policy'))
      throw new Error(`${route}: RateLimit-Policy ${res.headers.get('ratelimit-policy')}`)
  }
  console.log(
    `limits: GET /free/{id} and /limited/{id} (store ${STORE}), ${CONNECTIONS} connections, ${ROUNDS} rounds × ${SECONDS} s, load average ${loadavg()[0]!.toFixed(1)}`,
  )
  for (const route of ['free', 'limited']) await load(child, url, route, 2)
  const runs: Record<string, Run[]> = { free: [], limited: [] }
  const ratios: number[] = []
  const cpuRatios: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? ['free', 'limited'] : ['limited', 'free']
    for (const route of order) runs[route]!.push(await load(child, url, route, SECONDS))
    const [free, limited] = [runs.free!.at(-1)!, runs.limited!.at(-1)!]
    ratios.push(limited.rps / free.rps)
    cpuRatios.push(free.cpuPerRequest / limited.cpuPerRequest)
    console.log(
      `  round ${round}: free ${formatInt(free.rps)}/s ${free.cpuPerRequest.toFixed(0)} µs, limited ${formatInt(limited.rps)}/s ${limited.cpuPerRequest.toFixed(0)} µs → ${formatRatio(ratios.at(-1)!)}`,
    )
  }
  console.log(
    `limits: limited/free = ${formatRatio(median(ratios))} by req/s, ${formatRatio(median(cpuRatios))} by CPU per request (store ${STORE}; target ≥ ${TARGET}; load average ${loadavg()[0]!.toFixed(1)})`,
  )
} finally {
  await child.stop()
  await db.drop()
}
