// Router lookup speed: fw's Router against find-my-way (Fastify's router) in the same process.
// Registers N routes (static, one placeholder, two placeholders) for N = 10, 1,000, 10,000 and
// looks up a fixed mix of paths (hits of each kind, a HEAD, a trailing slash, misses) in a tight
// loop. The six (router, N) pairs run in alternating 50 ms slices of CPU time, about 1 s each in
// all, so that load from other processes falls on all of them alike; figures are medians over the
// slices.
//
// The paths are string literals, whose hash V8 caches after the first lookup; that favours fw's
// Map probe of static paths. A server gets a fresh string per request, so one more pair (N =
// 1,000) builds each path anew from bytes before looking it up; its ratio is printed apart.
// Run: node --import tsx bench/router.ts   (FW_BENCH_MS=<ms> sets the time per pair)
import FindMyWay from 'find-my-way'
import { Router } from '../kernel/router/router.js'
import { median } from './lib/stats.js'

const SIZES = [10, 1_000, 10_000] as const
const DURATION_MS = Number(process.env.FW_BENCH_MS ?? 1000)
const SLICES = 20

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

// Each (router, N) pair gets its own copy of the loop, hence its own type feedback.
type Lookup = readonly [string, string, Buffer]
type Loop = (
  find: Find,
  lookups: readonly Lookup[],
  ms: number,
) => { count: number; ms: number; hits: number }
const LITERAL: readonly Lookup[] = LOOKUPS.map(([m, p]) => [m, p, Buffer.from(p, 'latin1')])
// Time is process CPU time, not wall time: on a shared machine another process taking the CPU
// away does not count against the router being measured.
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
  return { count, ms: now - start, hits }`

interface Subject {
  readonly label: string
  readonly find: Find
  readonly loop: Loop
  readonly rates: number[]
}

function subject(label: string, find: Find, fresh: boolean): Subject {
  const hits = LOOKUPS.filter(([m, p]) => find(m, p) != null).length
  if (hits !== EXPECTED_HITS)
    throw new Error(
      `${label}: expected ${EXPECTED_HITS} of ${LOOKUPS.length} lookups to hit, got ${hits}`,
    )
  return {
    label,
    find,
    loop: new Function(
      'find',
      'lookups',
      'ms',
      loopSource(fresh ? "lookup[2].toString('latin1')" : 'lookup[1]'),
    ) as Loop,
    rates: [],
  }
}

interface Pair {
  readonly n: number
  readonly fresh: boolean
  readonly fw: Subject
  readonly fmw: Subject
  readonly ratios: number[]
}
const pair = (n: number, fresh = false): Pair => ({
  n,
  fresh,
  fw: subject(`fw N=${n}`, fwFind(n), fresh),
  fmw: subject(`find-my-way N=${n}`, fmwFind(n), fresh),
  ratios: [],
})
const pairs = [...SIZES.map((n) => pair(n)), pair(1_000, true)]
const all = pairs.flatMap((p) => [p.fw, p.fmw])
for (const s of all) s.loop(s.find, LITERAL, DURATION_MS / 4) // warm-up
let sink = 0
for (let i = 0; i < SLICES; i++) {
  for (const p of pairs) {
    for (const s of [p.fw, p.fmw]) {
      const r = s.loop(s.find, LITERAL, DURATION_MS / SLICES)
      s.rates.push((r.count / r.ms) * 1000)
      sink += r.hits
    }
    p.ratios.push((p.fw.rates.at(-1) as number) / (p.fmw.rates.at(-1) as number))
  }
}

const fmt = (rate: number): string => `${(rate / 1e6).toFixed(2)}M/s`
console.log(
  `router lookups: ${LOOKUPS.length} mixed paths, ${SLICES} × ${DURATION_MS / SLICES} ms per pair, node ${process.version}`,
)
for (const { n, fresh, fw, fmw, ratios } of pairs) {
  console.log(
    `  N=${String(n).padStart(6)}${fresh ? ' fresh' : '      '}  fw ${fmt(median(fw.rates)).padStart(9)}  find-my-way ${fmt(median(fmw.rates)).padStart(9)}  fw/find-my-way ${median(ratios).toFixed(2)}`,
  )
}
const literal = (n: number): Pair => pairs.find((p) => p.n === n && !p.fresh) as Pair
const ratio = median(literal(1_000).ratios)
const ratio10k = median(literal(10_000).ratios)
// fw at 10,000 routes against fw at 10, slice by slice (the two slices of a round are taken
// within ~0.2 s of each other), like the ratios against find-my-way: a ratio of two medians taken
// over the whole run would compare moments of different machine load.
const small = literal(10).fw.rates
const flatness = median(literal(10_000).fw.rates.map((rate, i) => rate / (small[i] as number)))
const flatnessOfMedians = median(literal(10_000).fw.rates) / median(small)
const fresh = median((pairs.find((p) => p.fresh) as Pair).ratios)
if (sink === 0) console.log('  (no lookups hit)')
console.log(
  `router: fw/find-my-way at 1000 routes = ${ratio.toFixed(2)}, at 10000 = ${ratio10k.toFixed(2)} (target ≥ 1.2); flatness 10k/10 = ${flatness.toFixed(2)} (target ≥ 0.95; of the medians ${flatnessOfMedians.toFixed(2)}); with fresh path strings = ${fresh.toFixed(2)}`,
)
