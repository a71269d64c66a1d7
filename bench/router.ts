// Router lookup speed: fw's Router against find-my-way (Fastify's router).
// Registers N routes (static, one placeholder, two placeholders) for N = 10, 1,000, 10,000 and
// looks up a fixed mix of paths (hits of each kind, a HEAD, a trailing slash, misses) in a tight
// loop.
//
// Each (router, N) pair runs in a process of its own, as a server's one router does: its own
// compiled code and type feedback, its own heap. In one shared process the routers' code was
// compiled once for all table sizes, on the feedback of whichever ran first, and the order of the
// pairs moved flatness by about 0.04. The parent has the processes run one at a time, in slices
// of 10 ms of their own CPU time, about 1 s each in all; a ratio compares two slices run one after
// the other (every other round in the reverse order), and figures are medians over the rounds.
// Short slices because a shared machine's speed can change by half from one moment to the next
// (seen on a 2-core VM: the same loop at 4.4 and 8.5 M lookups/s in turn, for tenths of a second):
// two neighbouring 10 ms slices mostly see the same speed, two 50 ms slices often did not.
//
// The paths are string literals, whose hash V8 caches after the first lookup; that favours fw's
// Map probe of static paths. A server gets a fresh string per request, so one more pair (N =
// 1,000) builds each path anew from bytes before looking it up; its ratio is printed apart.
// Run: node --import tsx bench/router.ts   (FW_BENCH_MS=<ms> sets the time per pair)
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import FindMyWay from 'find-my-way'
import { Router } from '../kernel/router/router.js'
import { median } from './lib/stats.js'

const SIZES = [10, 1_000, 10_000] as const
const DURATION_MS = Number(process.env.FW_BENCH_MS ?? 1000)
const SLICES = 100

// Present at every size (route k has index k / 3, so indexes 0..3 exist with N = 10).
const LOOKUPS: readonly (readonly [string, string])[] = [
  ['GET', '/r0/static'],
  ['GET', '/r3/static'],
  ['GET', '/r1/items/42'],
  ['GET', '/r2/items/7/comments/99'],
  ['GET', '/r0/items/abc/comments/x'],
  ['HEAD', '/r1/static'],
  ['GET', '/r2/items/15/'],
  ['GET', '/nothing/here'],
  ['GET', '/r1/items/42/unknown'],
  ['POST', '/r0/static'],
]
const EXPECTED_HITS = 7

type Find = (method: string, path: string) => unknown

function declare(n: number, add: (path: string, i: number) => void): void {
  for (let k = 0; k < n; k++) {
    const i = Math.floor(k / 3)
    const kind = k % 3
    add(
      kind === 0
        ? `/r${i}/static`
        : kind === 1
          ? `/r${i}/items/{id}`
          : `/r${i}/items/{id}/comments/{cid}`,
      i,
    )
  }
}

function fwFind(n: number): Find {
  const router = new Router()
  declare(n, (path, i) => router.get(path, () => i))
  router.compile()
  return (method, path) => router.find(method, path)
}

function fmwFind(n: number): Find {
  const router = FindMyWay({ ignoreTrailingSlash: true })
  declare(n, (path, i) => {
    const fmwPath = path.replace(/\{(\w+)\}/g, ':$1')
    router.on('GET', fmwPath, () => i)
    // find-my-way has no HEAD-from-GET of its own; declare HEAD as fw answers it.
    router.on('HEAD', fmwPath, () => i)
  })
  return (method, path) => router.find(method as 'GET', path)
}

type Lookup = readonly [string, string, Buffer]
const LITERAL: readonly Lookup[] = LOOKUPS.map(([m, p]) => [m, p, Buffer.from(p, 'latin1')])

/** What one process measures: a router at a table size, with literal or fresh path strings. */
interface Subject {
  readonly router: 'fw' | 'find-my-way'
  readonly n: number
  readonly fresh: boolean
}
/** A slice's outcome, as a process reports it. */
interface Slice {
  readonly rate: number
  readonly hits: number
}

// Time is the process's CPU time, not wall time: on a shared machine another process taking the
// CPU away does not count against the router being measured.
const loopSource = (path: string): string => `
  let count = 0, hits = 0
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
  const start = cpu()
  let now = start
  while (now - start < ms) {
    for (let r = 0; r < 50; r++) {
      for (let j = 0; j < lookups.length; j++) {
        const lookup = lookups[j]
        if (find(lookup[0], ${path}) != null) hits++
      }
    }
    count += 50 * lookups.length
    now = cpu()
  }
  return { rate: (count / (now - start)) * 1000, hits }`

/** The child: builds its subject, checks it, warms it up, then runs the slices it is sent. */
function measure(subject: Subject): void {
  const find = (subject.router === 'fw' ? fwFind : fmwFind)(subject.n)
  const hits = LOOKUPS.filter(([m, p]) => find(m, p) != null).length
  if (hits !== EXPECTED_HITS)
    throw new Error(
      `${subject.router} N=${subject.n}: expected ${EXPECTED_HITS} of ${LOOKUPS.length} lookups to hit, got ${hits}`,
    )
  const loop = new Function(
    'find',
    'lookups',
    'ms',
    loopSource(subject.fresh ? "lookup[2].toString('latin1')" : 'lookup[1]'),
  ) as (find: Find, lookups: readonly Lookup[], ms: number) => Slice
  loop(find, LITERAL, DURATION_MS / 4) // warm-up
  process.on('message', (ms: number) => process.send?.(loop(find, LITERAL, ms)))
  process.on('disconnect', () => process.exit(0))
  process.send?.('ready')
}

interface Runner {
  readonly rates: number[]
  slice(ms: number): Promise<Slice>
  readonly child: ChildProcess
}

/** Starts the process measuring `subject`, resolving once it has warmed up. */
function start(subject: Subject): Promise<Runner> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, FW_ROUTER_SUBJECT: JSON.stringify(subject) },
  })
  const label = `${subject.router} N=${subject.n}${subject.fresh ? ' fresh' : ''}`
  const next = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const fail = (code: number | null) => reject(new Error(`${label}: exited (${code})`))
      child.once('exit', fail)
      child.once('message', (message) => {
        child.off('exit', fail)
        resolve(message)
      })
    })
  return next().then(() => ({
    rates: [],
    child,
    slice: (ms) => {
      const reply = next() as Promise<Slice>
      child.send(ms)
      return reply
    },
  }))
}

interface Pair {
  readonly n: number
  readonly fresh: boolean
  readonly fw: Runner
  readonly fmw: Runner
  readonly ratios: number[]
}

async function main(): Promise<void> {
  const subjects = [...SIZES.map((n) => [n, false] as const), [1_000, true] as const]
  const pairs: Pair[] = await Promise.all(
    subjects.map(async ([n, fresh]) => {
      const [fw, fmw] = await Promise.all([
        start({ router: 'fw', n, fresh }),
        start({ router: 'find-my-way', n, fresh }),
      ])
      return { n, fresh, fw, fmw, ratios: [] }
    }),
  )
  const literal = (n: number): Pair => pairs.find((p) => p.n === n && !p.fresh) as Pair
  // Partners are neighbours: fw at 10 beside fw at 10,000 (flatness), each fw beside its
  // find-my-way.
  const order = [
    literal(10).fmw,
    literal(10).fw,
    literal(10_000).fw,
    literal(10_000).fmw,
    literal(1_000).fw,
    literal(1_000).fmw,
    ...pairs.filter((p) => p.fresh).flatMap((p) => [p.fw, p.fmw]),
  ]
  let sink = 0
  for (let i = 0; i < SLICES; i++) {
    for (const runner of i % 2 === 0 ? order : [...order].reverse()) {
      const slice = await runner.slice(DURATION_MS / SLICES)
      runner.rates.push(slice.rate)
      sink += slice.hits
    }
    for (const p of pairs)
      p.ratios.push((p.fw.rates.at(-1) as number) / (p.fmw.rates.at(-1) as number))
  }
  for (const p of pairs) for (const runner of [p.fw, p.fmw]) runner.child.disconnect()

  const fmt = (rate: number): string => `${(rate / 1e6).toFixed(2)}M/s`
  console.log(
    `router lookups: ${LOOKUPS.length} mixed paths, ${SLICES} × ${DURATION_MS / SLICES} ms per pair, a process per router and size, node ${process.version}`,
  )
  for (const { n, fresh, fw, fmw, ratios } of pairs) {
    console.log(
      `  N=${String(n).padStart(6)}${fresh ? ' fresh' : '      '}  fw ${fmt(median(fw.rates)).padStart(9)}  find-my-way ${fmt(median(fmw.rates)).padStart(9)}  fw/find-my-way ${median(ratios).toFixed(2)}`,
    )
  }
  const ratio = median(literal(1_000).ratios)
  const ratio10k = median(literal(10_000).ratios)
  // fw at 10,000 routes against fw at 10, slice by slice (neighbouring slices), like the ratios
  // against find-my-way: a ratio of two medians taken over the whole run would compare moments of
  // different machine load.
  const small = literal(10).fw.rates
  const flatness = median(literal(10_000).fw.rates.map((rate, i) => rate / (small[i] as number)))
  const flatnessOfMedians = median(literal(10_000).fw.rates) / median(small)
  const fresh = median((pairs.find((p) => p.fresh) as Pair).ratios)
  if (sink === 0) console.log('  (no lookups hit)')
  console.log(
    `router: fw/find-my-way at 1000 routes = ${ratio.toFixed(2)}, at 10000 = ${ratio10k.toFixed(2)} (target ≥ 1.2); flatness 10k/10 = ${flatness.toFixed(2)} (target ≥ 0.95; of the medians ${flatnessOfMedians.toFixed(2)}); with fresh path strings = ${fresh.toFixed(2)}`,
  )
}

const subject = process.env.FW_ROUTER_SUBJECT
if (subject === undefined) await main()
else measure(JSON.parse(subject) as Subject)
