// Resident memory of the playground under load: `fw serve` in production on a PostgreSQL database
// of its own (migrated and seeded by a first start of the playground), loaded with
// `GET /api/v1/products/{id}` (ids spread over 1…1000, 50 connections) by request count, RSS read
// after 10,000 and after 50,000 requests, as is (nothing forced). Then, separately, after a full
// GC (the child runs with --expose-gc; the GC at 10,000 runs after the as-is sample): the heap
// that survives, which is what a leak would grow. Baseline in the same run: bare polka + pg
// answering the same JSON, loaded the same way. With FW_BENCH_MEMORY_PGLITE=1 also the playground
// on embedded PGlite in memory (`pglite://memory`, ~+25 s).
// Prints `memory: rss after 10k=…MB (target < 200 MB), after 50k=…MB, growth=…MB (…%)`.
// Run: node --import tsx -C fw-source bench/memory.ts
import { readFileSync } from 'node:fs'
import { startBaseline } from './lib/baseline-server.js'
import type { ServerChild } from './lib/child-server.js'
import { fwCommand, get, startFw, type FwChild, type MemorySample } from './lib/playground-child.js'
import { checkProduct, loadProducts, PRODUCT_HEADERS, seededDatabase } from './lib/product-load.js'
import { formatInt } from './lib/stats.js'

const TARGET_MB = 200
const FIRST = 10_000
const TOTAL = 50_000
const CONNECTIONS = 50
/** Each load stops after this long even if its count is not reached (then the real count is printed). */
const MAX_SECONDS = 40
const PGLITE = process.env.FW_BENCH_MEMORY_PGLITE === '1'

const MB = 1024 * 1024
const mb = (bytes: number): string => (bytes / MB).toFixed(1)

/** A server whose memory can be read: through the probe, or /proc for the baseline. */
interface Measured {
  readonly name: string
  readonly url: string
  /** `gc` only where the child can collect (the playground children). */
  memory(gc: boolean): Promise<MemorySample | undefined>
}

interface Figures {
  readonly idle: MemorySample
  readonly first: { requests: number; asIs: MemorySample; gc?: MemorySample }
  readonly total: { requests: number; asIs: MemorySample; gc?: MemorySample }
  readonly rps: number
}

/** RSS of a process from /proc (Linux), for a child that has no probe. */
function procRss(pid: number): MemorySample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)
    if (!kb) return undefined
    const rss = Number(kb[1]) * 1024
    return {
      rss,
      heapTotal: NaN,
      heapUsed: NaN,
      external: NaN,
      arrayBuffers: NaN,
      collected: false,
    }
  } catch {
    return undefined
  }
}

function fromChild(name: string, url: string, child: FwChild): Measured {
  return { name, url, memory: (gc) => child.memory(gc) }
}

function fromServer(child: ServerChild): Measured {
  return {
    name: child.name,
    url: child.url,
    memory: async (gc) => (gc ? undefined : procRss(child.pid)),
  }
}

async function measure(server: Measured): Promise<Figures> {
  for (const id of [1, 500, 1000]) {
    const res = await get(`${server.url}/api/v1/products/${id}`, PRODUCT_HEADERS)
    if (res.status !== 200)
      throw new Error(
        `${server.name}: product ${id} answered ${res.status} ${res.body.slice(0, 300)}`,
      )
    checkProduct(server.name, id, res.body)
  }
  const sample = async (gc: boolean): Promise<MemorySample> => {
    const s = await server.memory(gc)
    if (s === undefined) throw new Error(`${server.name}: no memory figure (no /proc?)`)
    return s
  }
  const idle = await sample(false)
  const started = performance.now()
  const one = await loadProducts(server.name, {
    url: server.url,
    connections: CONNECTIONS,
    amount: FIRST,
    maxSeconds: MAX_SECONDS,
  })
  const firstRequests = one.requests.total
  const firstAsIs = await sample(false)
  const firstGc = (await server.memory(true)) ?? undefined
  const two = await loadProducts(server.name, {
    url: server.url,
    connections: CONNECTIONS,
    amount: TOTAL - FIRST,
    maxSeconds: MAX_SECONDS,
    offset: FIRST,
  })
  const totalRequests = firstRequests + two.requests.total
  const totalAsIs = await sample(false)
  const totalGc = (await server.memory(true)) ?? undefined
  const seconds = (performance.now() - started) / 1000
  return {
    idle,
    first: {
      requests: firstRequests,
      asIs: firstAsIs,
      ...(firstGc?.collected ? { gc: firstGc } : {}),
    },
    total: {
      requests: totalRequests,
      asIs: totalAsIs,
      ...(totalGc?.collected ? { gc: totalGc } : {}),
    },
    rps: totalRequests / seconds,
  }
}

function report(name: string, f: Figures): void {
  const k = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : formatInt(n))
  const heap = (s: MemorySample): string =>
    Number.isNaN(s.heapUsed)
      ? ''
      : `, heap used ${mb(s.heapUsed)} of ${mb(s.heapTotal)} MB, external ${mb(s.external)} MB`
  console.log(`  ${name}: ~${formatInt(f.rps)} req/s over the loads`)
  console.log(`    idle, after start      rss ${mb(f.idle.rss).padStart(6)} MB${heap(f.idle)}`)
  console.log(
    `    after ${k(f.first.requests).padEnd(6)} as is     rss ${mb(f.first.asIs.rss).padStart(6)} MB${heap(f.first.asIs)}`,
  )
  if (f.first.gc)
    console.log(
      `    after ${k(f.first.requests).padEnd(6)} after GC  rss ${mb(f.first.gc.rss).padStart(6)} MB${heap(f.first.gc)}`,
    )
  console.log(
    `    after ${k(f.total.requests).padEnd(6)} as is     rss ${mb(f.total.asIs.rss).padStart(6)} MB${heap(f.total.asIs)}`,
  )
  if (f.total.gc)
    console.log(
      `    after ${k(f.total.requests).padEnd(6)} after GC  rss ${mb(f.total.gc.rss).padStart(6)} MB${heap(f.total.gc)}`,
    )
}

function summary(f: Figures, target: boolean): string {
  const k = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : formatInt(n))
  const growth = f.total.asIs.rss - f.first.asIs.rss
  let line =
    `rss after ${k(f.first.requests)}=${mb(f.first.asIs.rss)}MB${target ? ` (target < ${TARGET_MB} MB)` : ''}, after ${k(f.total.requests)}=${mb(f.total.asIs.rss)}MB, ` +
    `growth=${growth >= 0 ? '+' : ''}${mb(growth)}MB (${((growth / f.first.asIs.rss) * 100).toFixed(1)}%)`
  if (f.first.gc && f.total.gc) {
    const retained = f.total.gc.heapUsed - f.first.gc.heapUsed
    line += `; heap after GC ${mb(f.first.gc.heapUsed)}→${mb(f.total.gc.heapUsed)}MB (${retained >= 0 ? '+' : ''}${mb(retained)}MB)`
  }
  return line
}

async function main(): Promise<void> {
  const command = fwCommand()
  console.log(
    `memory: GET /api/v1/products/{1…1000}, ${CONNECTIONS} connections, RSS after ${formatInt(FIRST)} and ${formatInt(TOTAL)} requests (each load bounded to ${MAX_SECONDS} s)`,
  )
  console.log(`  fw: ${command.note}`)
  console.log(
    `  polka+pg: ${command.built ? 'bundled with esbuild, plain node (as fw runs built)' : 'through tsx (as fw; tsx adds ~35 MB to both)'}`,
  )
  const db = await seededDatabase(command)
  const children: Array<FwChild | ServerChild> = []
  const results: Array<{ label: string; figures: Figures }> = []
  try {
    // Baseline first: bare polka + pg, the same requests.
    const baseline = await startBaseline('polka+pg', './server-products-pg.ts', command.built, {
      DATABASE_URL: db.url,
    })
    children.push(baseline)
    const baselineFigures = await measure(fromServer(baseline))
    report('polka+pg (baseline)', baselineFigures)
    await baseline.stop()

    const targets: Array<{ label: string; url: string }> = [{ label: 'postgresql', url: db.url }]
    if (PGLITE) targets.push({ label: 'pglite memory', url: 'pglite://memory' })
    for (const target of targets) {
      const child = startFw({
        name: `fw (${target.label})`,
        env: { DATABASE_URL: target.url, NODE_ENV: 'production' },
        nodeArgs: ['--expose-gc'],
        probe: true,
        command,
      })
      children.push(child)
      const { url } = await child.listening(60_000)
      const figures = await measure(fromChild(`fw (${target.label})`, url, child))
      report(`fw, playground on ${target.label}`, figures)
      results.push({ label: target.label, figures })
      await child.stop()
    }
    console.log(`  baseline: polka+pg ${summary(baselineFigures, false)}`)
    for (const { label, figures } of results) {
      console.log(
        `memory${label === 'postgresql' ? '' : ` (${label})`}: ${summary(figures, true)}; polka+pg baseline rss after 10k=${mb(baselineFigures.first.asIs.rss)}MB`,
      )
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await db.drop()
  }
}

await main()
