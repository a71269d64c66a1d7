// What the API pipeline costs, in this process, through `kernel.inject`: a JSON route behind the
// full pipeline (CORS, content type, API key with the default `applications` checker and its 5 s
// key cache) against the same request to the same route without middleware, interleaved over several rounds (medians).
// Informational: the same route answered as XML. Target: pipeline / plain ≥ 0.8.
// The app is the playground (embedded PGlite in memory, seeded) with two extra routes.
// Run: node --import tsx -C fw-source bench/api.ts
//      FW_BENCH_MS=<ms> per measurement (default 200), FW_BENCH_ROUNDS rounds (default 7).
import type { Kernel } from 'fw'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../playground/app.js'
import { interleave } from './lib/measure.js'
import { formatInt, formatRatio } from './lib/stats.js'

const MS = Number(process.env.FW_BENCH_MS ?? 200)
const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 7)

const kernel: Kernel = createApp({
  env: { DATABASE_URL: 'pglite://memory', NODE_ENV: 'production', FW_CONFIG: '{"features":[]}' },
  logger: createMemoryLogger(),
})
const payload = () => ({ data: { id: 1, name: 'Desk lamp', sku: 'PG-0001', price: 19.5 } })
kernel.router.get('bench/plain', payload)
kernel.router.get('api/bench/piped', payload).middleware('api')
await kernel.boot()
await kernel.plugin('database').prepare()

const API = { apikey: 'demo-api-key', origin: 'https://client.example' }
const XML = { ...API, accept: 'application/xml' }

function loop(url: string, headers: Record<string, string>, type: string) {
  return async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await kernel.inject({ url, headers })
      if (res.status !== 200 || !String(res.headers['content-type']).startsWith(type))
        throw new Error(`${url}: ${res.status} ${res.body.slice(0, 200)}`)
    }
  }
}

const result = await interleave(
  {
    // The same request (headers included) to the route without middleware.
    plain: { body: loop('/bench/plain', API, 'application/json') },
    pipeline: { body: loop('/api/bench/piped', API, 'application/json') },
    pipelineXml: { body: loop('/api/bench/piped', XML, 'application/xml') },
  },
  { rounds: ROUNDS, ms: MS },
)
await kernel.close()

const rps = (ns: number) => 1e9 / ns
console.log('JSON route, kernel.inject, medians:')
for (const [name, r] of Object.entries(result))
  console.log(`  ${name.padEnd(12)} ${formatInt(rps(r.median))} req/s  (${formatInt(r.median)} ns)`)
const ratio = result.plain.median / result.pipeline.median
console.log(
  `  ratio pipeline (CORS + content type + API key) / plain: ${formatRatio(ratio)} (target ≥ 0.8)`,
)
console.log(
  `  ratio pipeline as XML / plain:                          ${formatRatio(result.plain.median / result.pipelineXml.median)}`,
)
