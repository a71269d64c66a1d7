// Compression's cost in throughput: the same fw server answers each route to a client that
// accepts brotli and gzip (`Accept-Encoding: gzip, deflate, br`, as browsers send it) and to one
// that does not (identity: the baseline), in interleaved rounds on one server. Routes: ~10 KB of
// HTML and of JSON rendered per request with the same content (compressed once, then from the
// cache), ~10 KB of HTML that differs on every request (compressed every time), and a ~10 KB
// static script (compressed once, served from memory; identity is sirv's file stream).
// Targets: compressed ≥ 0.9× identity's req/s for HTML and JSON, ≥ 0.98× for the static file.
// First it times one body's compression on the event loop against the thread pool (the choice of
// `SYNC_MAX` in kernel/http/compression.ts).
// Run: node --import tsx -C fw-source bench/compression.ts
//      FW_BENCH_SECONDS=<s> FW_BENCH_ROUNDS=<n> change the measured time and the rounds.
import autocannon from 'autocannon'
import { performance } from 'node:perf_hooks'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { compressAsync, dynamicOptions, type Encoding } from '../kernel/http/compression.js'
import { startServer, type ServerChild } from './lib/child-server.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const SECONDS = Number(process.env.FW_BENCH_SECONDS ?? 4)
const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 3)
const CONNECTIONS = 32
const ACCEPT = 'gzip, deflate, br'
const ROUTES = [
  { path: '/html', target: 0.9 },
  { path: '/json', target: 0.9 },
  { path: '/html-unique', target: undefined },
  { path: '/static/app.js', target: 0.98 },
] as const

interface Run {
  rps: number
  cpuPerRequest: number
  bytes: number
}

async function load(server: ServerChild, path: string, compressed: boolean): Promise<Run> {
  const before = await server.cpu()
  const result = await autocannon({
    url: server.url + path,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: compressed ? { 'accept-encoding': ACCEPT } : {},
  })
  const after = await server.cpu()
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0)
    throw new Error(
      `${path}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    )
  const total = result.requests.total
  return {
    rps: total / result.duration,
    cpuPerRequest: (after.user + after.system - before.user - before.system) / total,
    bytes: result.throughput.total / total,
  }
}

/** CPU µs per call of compressing `size` bytes of HTML, on the loop and through the thread pool. */
async function syncOrAsync(): Promise<void> {
  console.log('sync/async: CPU µs per body (this process, all threads), brotli q4 / gzip 6')
  for (const size of [1024, 10 * 1024, 64 * 1024, 256 * 1024]) {
    const body = Buffer.from(
      '<tr><td>Desk lamp</td><td>19.50</td></tr>'.repeat(size / 40).slice(0, size),
    )
    const line: string[] = []
    for (const encoding of ['br', 'gzip'] as Encoding[]) {
      const options = dynamicOptions(encoding, size)
      const n = Math.max(20, Math.round(2_000_000 / size))
      const sync = (): void => {
        if (encoding === 'br') brotliCompressSync(body, options)
        else gzipSync(body, options)
      }
      for (let i = 0; i < 10; i++) sync()
      let cpu = process.cpuUsage()
      const wall = performance.now()
      for (let i = 0; i < n; i++) sync()
      const syncCpu = cpuOf(process.cpuUsage(cpu)) / n
      const syncWall = ((performance.now() - wall) * 1000) / n
      cpu = process.cpuUsage()
      for (let i = 0; i < n; i++) await compressAsync(body, encoding, options)
      const asyncCpu = cpuOf(process.cpuUsage(cpu)) / n
      line.push(
        `${encoding} sync ${syncCpu.toFixed(0)} (loop blocked ${syncWall.toFixed(0)}) async ${asyncCpu.toFixed(0)}`,
      )
    }
    console.log(`  ${String(size / 1024).padStart(4)} KB  ${line.join('   ')}`)
  }
}

const cpuOf = (u: NodeJS.CpuUsage): number => u.user + u.system

async function main(): Promise<void> {
  await syncOrAsync()
  console.log(
    `compression: ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per case, identity and '${ACCEPT}' interleaved`,
  )
  const server = await startServer('fw', './server-compression.ts')
  try {
    const runs = new Map<string, Run[]>()
    const key = (path: string, compressed: boolean): string =>
      `${path} ${compressed ? 'br' : 'identity'}`
    for (const { path } of ROUTES) for (const c of [false, true]) await load(server, path, c) // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { path } of ROUTES) {
        // Alternate which goes first, so a slow spell of the machine does not always hit one.
        const order = round % 2 === 0 ? [true, false] : [false, true]
        for (const compressed of order) {
          const run = await load(server, path, compressed)
          runs.set(key(path, compressed), [...(runs.get(key(path, compressed)) ?? []), run])
          console.log(
            `  round ${round}  ${key(path, compressed).padEnd(24)} ${formatInt(run.rps).padStart(7)} req/s  ${run.cpuPerRequest.toFixed(0).padStart(4)} µs CPU/req  ${formatInt(run.bytes).padStart(6)} B/response`,
          )
        }
      }
    }
    for (const { path, target } of ROUTES) {
      const med = (c: boolean, f: (r: Run) => number): number =>
        median(runs.get(key(path, c))!.map(f))
      const ratio = med(true, (r) => r.rps) / med(false, (r) => r.rps)
      console.log(
        `compression: ${path.padEnd(15)} compressed/identity = ${formatRatio(ratio)}${target === undefined ? ' (no target: compressed on every request)' : ` (target ≥ ${target})`}  ` +
          `${formatInt(med(true, (r) => r.rps))} vs ${formatInt(med(false, (r) => r.rps))} req/s, CPU/req ${med(true, (r) => r.cpuPerRequest).toFixed(0)} vs ${med(false, (r) => r.cpuPerRequest).toFixed(0)} µs, ${formatInt(med(true, (r) => r.bytes))} vs ${formatInt(med(false, (r) => r.bytes))} B`,
      )
    }
  } finally {
    await server.stop()
  }
}

await main()
