// What the debug facility costs, in-process (`kernel.inject`), interleaved time-bounded loops,
// medians over rounds:
//  (1) production, `debug` feature on, application key set, no grant — against the same kernel
//      without the debug plugin: `GET /ping` (JSON). In-process, where a request costs ~1.6 µs,
//      the plugin's three taps show (~0.2 µs); reported, not the target.
//  (1b) the same over HTTP, as an app serves it: the playground's plugins without the database
//      ones (no PGlite), `fw serve` in production with an application key, with and without the
//      debug plugin (bench/lib/playground-variants.mjs), `GET /_demo/ping`, autocannon, server CPU
//      per request, interleaved rounds. Target ≥ 0.97 (CPU ratio).
//  (2) development (annotated: `_debug`, Server-Timing, X-Fw-Debug, request id) — against the same
//      playground in production: `GET /_demo/queries?n=5` (5 statements, PGlite in memory).
//      Target ≥ 0.6.
// Run: node --import tsx -C fw-source bench/debug.ts
//      FW_BENCH_DEBUG_MS=<ms per round> FW_BENCH_DEBUG_ROUNDS=<n>
import { createKernel, type Kernel } from 'fw'
import debug from 'fw/plugins/debug'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../playground/app.js'
import { interleave } from './lib/measure.js'
import { checkPing, loadPing, type LoadRun } from './lib/ping-load.js'
import { startFw } from './lib/playground-child.js'
import { NO_DATABASE } from './lib/serve-variants.js'
import { formatInt, formatRatio } from './lib/stats.js'

const MS = Number(process.env.FW_BENCH_DEBUG_MS ?? 400)
const ROUNDS = Number(process.env.FW_BENCH_DEBUG_ROUNDS ?? 7)
const KEY = 'bench-debug-key-0123456789abcdef0123456789'

function plainKernel(withDebug: boolean): Kernel {
  const kernel = createKernel({
    env: {},
    logger: createMemoryLogger(),
    config: { app: { name: 'bench', key: KEY }, features: ['debug', 'DevPanel'] },
  })
  if (withDebug) kernel.register(debug)
  kernel.router.get('ping', () => ({ hello: 'world', n: 1 }))
  return kernel
}

async function check(kernel: Kernel, url: string, annotated: boolean): Promise<void> {
  const res = await kernel.inject(url)
  if (res.status !== 200)
    throw new Error(`${url} answered ${res.status}: ${res.body.slice(0, 200)}`)
  if (annotated !== (res.headers['x-fw-debug'] !== undefined))
    throw new Error(`${url}: expected annotated=${annotated}`)
}

const loop = (kernel: Kernel, url: string) => async (n: number) => {
  for (let i = 0; i < n; i++) await kernel.inject(url)
}

const withDebug = plainKernel(true)
const without = plainKernel(false)
await check(withDebug, '/ping', false)
await check(without, '/ping', false)
const one = await interleave(
  { debugPlugin: { body: loop(withDebug, '/ping') }, noPlugin: { body: loop(without, '/ping') } },
  { rounds: ROUNDS, ms: MS, warmupMs: 100 },
)
const ratio1 = one.noPlugin.median / one.debugPlugin.median
console.log('(1) production, feature on, no grant vs no debug plugin: GET /ping')
console.log(
  `    with debug:    ${formatInt(1e9 / one.debugPlugin.median)} req/s (${formatInt(one.debugPlugin.median)} ns)`,
)
console.log(
  `    without:       ${formatInt(1e9 / one.noPlugin.median)} req/s (${formatInt(one.noPlugin.median)} ns)`,
)
console.log(`    ratio:         ${formatRatio(ratio1)} (in-process, reported)`)
await withDebug.close()
await without.close()

// (1b) Over HTTP: two `fw serve` children, the same app with and without the debug plugin.
const VARIANTS = new URL('./lib/playground-variants.mjs', import.meta.url).pathname
const served = await Promise.all(
  [
    { name: 'with debug', skip: NO_DATABASE },
    { name: 'without', skip: `${NO_DATABASE},debug` },
  ].map(async ({ name, skip }) => {
    const child = startFw({
      name,
      env: { NODE_ENV: 'production', FW_APP: VARIANTS, FW_BENCH_SKIP: skip, FW_APP_KEY: KEY },
      probe: true,
    })
    const { url } = await child.listening(60_000)
    return { name, url, cpu: () => child.cpu(), stop: () => child.stop() }
  }),
)
const httpRuns = new Map<string, LoadRun[]>(served.map((s) => [s.name, []]))
for (const server of served) {
  await checkPing(server)
  await loadPing(server, { seconds: 2, connections: 50 })
}
for (let round = 0; round < 5; round++) {
  for (let i = 0; i < served.length; i++) {
    const server = served[(i + round) % served.length]!
    httpRuns.get(server.name)!.push(await loadPing(server, { seconds: 3, connections: 50 }))
  }
}
const cpuOf = (name: string): number => {
  const sorted = httpRuns
    .get(name)!
    .map((r) => r.cpuPerRequest)
    .sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
const ratio1b = cpuOf('without') / cpuOf('with debug')
console.log('(1b) the same over HTTP: fw serve, production, app key, no grant, GET /_demo/ping')
for (const s of served)
  console.log(`    ${s.name.padEnd(14)} ${cpuOf(s.name).toFixed(1)} µs CPU/req`)
console.log(`    ratio:         ${formatRatio(ratio1b)} (target ≥ 0.97)`)
await Promise.all(served.map((s) => s.stop()))

const env = { DATABASE_URL: 'pglite://memory', FW_APP_KEY: KEY }
const dev = createApp({ env, logger: createMemoryLogger() })
const prod = createApp({ env: { ...env, NODE_ENV: 'production' }, logger: createMemoryLogger() })
await dev.boot()
await prod.boot()
const url = '/_demo/queries?n=5'
await check(dev, url, true)
await check(prod, url, false)
const two = await interleave(
  { development: { body: loop(dev, url) }, production: { body: loop(prod, url) } },
  { rounds: ROUNDS, ms: MS, warmupMs: 100 },
)
const ratio2 = two.production.median / two.development.median
console.log('(2) development (annotated) vs production: GET /_demo/queries?n=5 (PGlite)')
console.log(
  `    development:   ${formatInt(1e9 / two.development.median)} req/s (${formatInt(two.development.median)} ns)`,
)
console.log(
  `    production:    ${formatInt(1e9 / two.production.median)} req/s (${formatInt(two.production.median)} ns)`,
)
console.log(`    ratio:         ${formatRatio(ratio2)} (target ≥ 0.60)`)
await dev.close()
await prod.close()
