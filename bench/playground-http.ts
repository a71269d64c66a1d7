// The real thing over HTTP: the playground as `fw serve` runs it (built CLI when dist/ is up to
// date, production, no grant, PGlite in a temp dir) answering `GET /_demo/ping`
// (`{"hello":"world","n":1}`, no database touched) against bare polka 1.0.0-next.28 and against a
// Fastify 5 app with @fastify/cookie, @fastify/cors and @fastify/request-context registered
// (bench/lib/server-fastify.ts), interleaved in one run. Each server in its own child process,
// autocannon in this one (50 connections, pipelining 1); the server's CPU time per request comes
// from `process.cpuUsage()` in the child over IPC.
//
// Then an ablation, interleaved in a second phase: the playground with each plugin left out in
// turn (bench/lib/playground-variants.mjs through `FW_APP=`; plugins that depend on a left-out one
// go with it) and the kernel with the ping route alone; the Fastify app without each of its
// plugins and bare Fastify. A variant's CPU µs/request minus the kernel-only one's is what its
// plugins cost a route that uses none of them; the full app's minus a variant's is what the
// left-out plugins cost it.
//
// Run: npm run bench -- playground-http [--duration 5] [--rounds 3] [--ablation-duration 2]
//                                        [--no-ablation] [--check-factory]
//   --duration: seconds per server per round of the main comparison; --ablation-duration: the
//   same for the ablation (0 or --no-ablation skips it); --check-factory also loads the variant
//   factory with nothing left out (it should match `fw` within noise).
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startBaseline } from './lib/baseline-server.js'
import type { CpuTime } from './lib/child-server.js'
import { checkPing, loadPing, PING_PATH as PATH, type LoadRun } from './lib/ping-load.js'
import { fwCommand, startFw, type FwCommand } from './lib/playground-child.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const TARGET_POLKA = 0.85
const TARGET_FASTIFY = 1.1
/** µs of CPU per request that a registered plugin may cost a route that does not use it. */
const TARGET_PLUGIN_US = 0.5
/** Below this share of a core, a server was not what limited the request rate. */
const SATURATED = 0.85
const CONNECTIONS = 50
const VARIANTS_APP = fileURLToPath(new URL('./lib/playground-variants.mjs', import.meta.url))

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    'ablation-duration': { type: 'string', default: '2' },
    'no-ablation': { type: 'boolean', default: false },
    'check-factory': { type: 'boolean', default: false },
  },
  strict: true,
})
function positive(name: string, value: string, allowZero = false): number {
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !allowZero)) {
    throw new Error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number`)
  }
  return n
}
const SECONDS = positive('duration', options.duration)
const ROUNDS = Math.round(positive('rounds', options.rounds))
const WARMUP_SECONDS = positive('warmup', options.warmup, true)
const ABLATION_SECONDS = options['no-ablation']
  ? 0
  : positive('ablation-duration', options['ablation-duration'], true)

/** A server under load: a child answering GET /_demo/ping and telling its CPU time. */
interface Server {
  readonly name: string
  readonly url: string
  cpu(): Promise<CpuTime>
  stop(): Promise<void>
}

type Run = LoadRun

/** A playground variant of the ablation: what FW_BENCH_SKIP leaves out, and why. */
interface Variant {
  readonly name: string
  readonly skip: readonly string[]
  /** Registers PGlite (the database plugin): needs a data directory. */
  readonly database: boolean
  /** Left out beyond the named plugin, because they depend on it. */
  readonly note?: string
}

const VARIANTS: readonly Variant[] = [
  { name: 'fw kernel only', skip: ['all'], database: false },
  { name: 'fw − logging', skip: ['logging'], database: true },
  { name: 'fw − views', skip: ['views'], database: true },
  { name: 'fw − debug', skip: ['debug'], database: true },
  {
    name: 'fw − database',
    skip: ['database', 'auth', 'list', 'playground'],
    database: false,
    note: 'auth, list and the playground plugin depend on it: left out too',
  },
  { name: 'fw − auth', skip: ['auth'], database: true },
  {
    name: 'fw − api',
    skip: ['api', 'playground'],
    database: true,
    note: 'the playground plugin (its api middleware group) and /api/v1/me need it: left out too',
  },
  { name: 'fw − list', skip: ['list'], database: true },
  { name: 'fw − health', skip: ['health'], database: true },
  {
    name: 'fw − playground',
    skip: ['playground'],
    database: true,
    note: "the app's own plugin (its ~30 other routes, the api group); ping declared directly",
  },
]
const FACTORY_CHECK: Variant = { name: 'fw factory, all', skip: [], database: true }

/** The Fastify variants: what FW_BENCH_FASTIFY_SKIP leaves out. */
const FASTIFY_VARIANTS: ReadonlyArray<{ name: string; skip: string }> = [
  { name: 'fastify bare', skip: 'cookie,cors,request-context' },
  { name: 'fastify − cookie', skip: 'cookie' },
  { name: 'fastify − cors', skip: 'cors' },
  { name: 'fastify − request-context', skip: 'request-context' },
]

const check = (server: Server): Promise<unknown> => checkPing(server)

const load = (server: Server, seconds: number, all: readonly Server[]): Promise<Run> =>
  loadPing(server, { seconds, connections: CONNECTIONS, others: all.filter((s) => s !== server) })

const pct = (share: number): string => `${Math.round(share * 100)}%`.padStart(4)

function describe(name: string, run: Run, width: number): string {
  return (
    `${name.padEnd(width)} ${formatInt(run.rps).padStart(7)} req/s  server ${run.cpuPerRequest.toFixed(1).padStart(5)} µs CPU/req, ` +
    `${pct(run.serverCpu)} of a core  load generator ${pct(run.loadgenCpu)}  idle servers ${pct(run.othersCpu)}`
  )
}

/** Medians of a set of runs. */
interface Summary {
  readonly rps: number
  readonly cpu: number
  /** The lowest and highest CPU µs/request over the rounds (the noise). */
  readonly cpuMin: number
  readonly cpuMax: number
  readonly serverCpu: number
  readonly othersCpu: number
}

/**
 * Warms each server up (its first seconds are JIT), then `rounds` rounds of `seconds` per server,
 * the order rotating each round so that a slow spell of the shared machine does not always hit the
 * same server. `all` is every live server (the others' CPU is watched while one is loaded).
 */
async function measure(
  label: string,
  servers: readonly Server[],
  all: readonly Server[],
  seconds: number,
  warmup: readonly Server[],
): Promise<Map<string, Summary>> {
  const width = Math.max(...servers.map((s) => s.name.length))
  for (const server of warmup) if (WARMUP_SECONDS > 0) await load(server, WARMUP_SECONDS, all)
  const runs = new Map<string, Run[]>(servers.map((s) => [s.name, []]))
  for (let round = 1; round <= ROUNDS; round++) {
    const order = servers.map((_, i) => servers[(i + round - 1) % servers.length]!)
    for (const server of order) {
      const run = await load(server, seconds, all)
      runs.get(server.name)!.push(run)
      console.log(`  ${label} round ${round}  ${describe(server.name, run, width)}`)
    }
  }
  const summaries = new Map<string, Summary>()
  for (const [name, list] of runs) {
    summaries.set(name, {
      rps: median(list.map((r) => r.rps)),
      cpu: median(list.map((r) => r.cpuPerRequest)),
      cpuMin: Math.min(...list.map((r) => r.cpuPerRequest)),
      cpuMax: Math.max(...list.map((r) => r.cpuPerRequest)),
      serverCpu: median(list.map((r) => r.serverCpu)),
      othersCpu: median(list.map((r) => r.othersCpu)),
    })
  }
  return summaries
}

function fwServer(
  name: string,
  command: FwCommand,
  env: Readonly<Record<string, string>>,
  dataDir: string | undefined,
): () => Promise<Server> {
  return async () => {
    const child = startFw({
      name,
      env: {
        NODE_ENV: 'production',
        // The ping route touches no database; variants without the database plugin ignore this.
        DATABASE_URL: dataDir === undefined ? 'pglite://memory' : `pglite://${dataDir}`,
        ...env,
      },
      probe: true,
      command,
    })
    const { url } = await child.listening(120_000)
    return { name, url, cpu: () => child.cpu(), stop: () => child.stop() }
  }
}

/** Runs the starters at most `limit` at a time (PGlite's fresh start is ~2.5 s of CPU). */
async function startAll(
  starters: ReadonlyArray<() => Promise<Server>>,
  limit: number,
  started: Server[],
): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < starters.length) {
      const server = await starters[next++]!()
      started.push(server)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, starters.length) }, worker))
}

function row(cells: readonly string[], widths: readonly number[]): string {
  return `  | ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [
    row(header, widths),
    `  |${widths.map((w, i) => (i === 0 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`,
    ...rows.map((r) => row(r, widths)),
  ].join('\n')
}

const spread = (s: Summary): string => `${s.cpuMin.toFixed(0)}–${s.cpuMax.toFixed(0)}`
const signed = (us: number): string => `${us >= 0 ? '+' : '−'}${Math.abs(us).toFixed(1)}`
/** An ablation table's row: the server, its medians and spread, then its two differences. */
const ablationRow = (label: string, s: Summary, minusBase: string, leftOut: string): string[] => [
  label,
  formatInt(s.rps),
  s.cpu.toFixed(1),
  spread(s),
  minusBase,
  leftOut,
]

async function main(): Promise<void> {
  const command = fwCommand()
  const tmp = mkdtempSync(join(tmpdir(), 'fw-bench-playground-http-'))
  console.log(
    `playground-http: GET ${PATH} on 127.0.0.1, ${CONNECTIONS} connections, pipelining 1, ${WARMUP_SECONDS} s warm-up, ${ROUNDS} × ${SECONDS} s per server` +
      (ABLATION_SECONDS > 0 ? `; ablation ${ROUNDS} × ${ABLATION_SECONDS} s per server` : ''),
  )
  console.log(`  fw: ${command.note}; NODE_ENV=production, no grant, PGlite in ${tmp}`)
  console.log(
    `  polka, fastify: ${command.built ? 'bundled with esbuild, plain node (as fw runs built)' : 'through tsx (as fw)'}`,
  )
  const servers: Server[] = []
  try {
    // Baselines first (one at a time: startBaseline writes one bundle per file).
    servers.push(await startBaseline('polka', './server-polka.ts', command.built))
    servers.push(await startBaseline('fastify+3', './server-fastify.ts', command.built))
    const dataDirs = [join(tmp, 'fw')]
    const starters: Array<() => Promise<Server>> = [fwServer('fw', command, {}, dataDirs[0])]
    const variants = ABLATION_SECONDS > 0 ? [...VARIANTS] : []
    if (ABLATION_SECONDS > 0 && options['check-factory']) variants.push(FACTORY_CHECK)
    for (const [i, v] of variants.entries()) {
      starters.push(
        fwServer(
          v.name,
          command,
          { FW_APP: VARIANTS_APP, FW_BENCH_SKIP: v.skip.join(',') },
          v.database ? join(tmp, `variant-${i}`) : undefined,
        ),
      )
      if (v.database) dataDirs.push(join(tmp, `variant-${i}`))
    }
    if (ABLATION_SECONDS > 0) {
      for (const f of FASTIFY_VARIANTS) {
        servers.push(
          await startBaseline(f.name, './server-fastify.ts', command.built, {
            FW_BENCH_FASTIFY_SKIP: f.skip,
          }),
        )
      }
    }
    // One fresh PGlite directory migrated and seeded by the playground, then copied for each
    // server that registers the database plugin: a restart each (~1 s) instead of a fresh start
    // (~2.5 s of CPU) each.
    let startedAt = performance.now()
    const seeder = startFw({
      name: 'fw (seeding PGlite)',
      env: { NODE_ENV: 'production', DATABASE_URL: `pglite://${join(tmp, 'template')}` },
      probe: true,
      command,
    })
    await seeder.listening(120_000)
    await seeder.stop()
    for (const dir of dataDirs) cpSync(join(tmp, 'template'), dir, { recursive: true })
    console.log(
      `  PGlite: migrated and seeded in ${((performance.now() - startedAt) / 1000).toFixed(1)} s, copied for the ${dataDirs.length} servers that open it`,
    )
    startedAt = performance.now()
    await startAll(starters, 2, servers)
    console.log(
      `  ${servers.length} servers started (${starters.length} fw serve) in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
    )
    for (const server of servers) await check(server)
    const byName = (name: string): Server => servers.find((s) => s.name === name)!

    // Main comparison.
    const main = [byName('polka'), byName('fastify+3'), byName('fw')]
    const m = await measure('main', main, servers, SECONDS, main)
    const get3 = (n: string): Summary => m.get(n)!
    for (const n of ['polka', 'fastify+3', 'fw']) {
      const s = get3(n)
      console.log(
        `  median ${n.padEnd(9)} ${formatInt(s.rps).padStart(7)} req/s  ${s.cpu.toFixed(1)} µs CPU/req (rounds ${spread(s)})  (${pct(s.serverCpu).trim()} of a core)`,
      )
    }
    const busiest = Math.min(...main.map((s) => get3(s.name).serverCpu))
    if (busiest < SATURATED) {
      console.log(
        `  note: a server used only ${Math.round(busiest * 100)}% of a core (median): it was not the bottleneck, so the req/s ratios are loose; the CPU ratios hold`,
      )
    }
    const fw = get3('fw')
    const polka = get3('polka')
    const fastify = get3('fastify+3')
    console.log(
      `  targets: fw ≥ ${TARGET_POLKA}× bare polka, ≥ ${TARGET_FASTIFY}× fastify+3 (cookie + cors + request-context); each registered plugin a route does not use ≤ ${TARGET_PLUGIN_US} µs CPU/request`,
    )
    console.log(
      `playground-http: fw/polka = ${formatRatio(fw.rps / polka.rps)} (target ≥ ${TARGET_POLKA}); ` +
        `fw/fastify = ${formatRatio(fw.rps / fastify.rps)} (target ≥ ${TARGET_FASTIFY}); ` +
        `fastify/polka = ${formatRatio(fastify.rps / polka.rps)}; ` +
        `CPU/req fw ${fw.cpu.toFixed(1)} µs, polka ${polka.cpu.toFixed(1)} µs, fastify+3 ${fastify.cpu.toFixed(1)} µs ` +
        `(CPU ratios polka/fw = ${formatRatio(polka.cpu / fw.cpu)}, fastify/fw = ${formatRatio(fastify.cpu / fw.cpu)})`,
    )
    if (ABLATION_SECONDS === 0) return

    // Ablation: every variant, with the full apps again and the references, in one rotation.
    const ablated = [
      byName('fw'),
      ...variants.map((v) => byName(v.name)),
      byName('fastify+3'),
      ...FASTIFY_VARIANTS.map((f) => byName(f.name)),
    ]
    const fresh = ablated.filter((s) => !main.includes(s))
    console.log(`  ablation: ${ablated.length} servers, ${ROUNDS} × ${ABLATION_SECONDS} s each`)
    const a = await measure('ablation', ablated, servers, ABLATION_SECONDS, fresh)
    const fwFull = a.get('fw')!
    const kernel = a.get('fw kernel only')!
    const rows = [
      ablationRow('fw (the playground, all plugins)', fwFull, signed(fwFull.cpu - kernel.cpu), ''),
    ]
    for (const v of variants) {
      const s = a.get(v.name)!
      const removed = v.skip.includes('all') ? 'all' : v.skip.join(' + ')
      rows.push(
        ablationRow(
          v.name + (v.note === undefined ? '' : ` (${removed})`),
          s,
          v.skip.includes('all') ? '0' : signed(s.cpu - kernel.cpu),
          signed(fwFull.cpu - s.cpu),
        ),
      )
    }
    console.log(
      '\n  fw ablation (medians; "left out costs" = full app − variant, µs CPU per request):',
    )
    console.log(
      table(['variant', 'req/s', 'µs CPU/req', 'rounds', '− kernel only', 'left out costs'], rows),
    )
    const notes = variants.filter((v) => v.note !== undefined)
    for (const v of notes) console.log(`    ${v.name}: ${v.note}`)

    const bare = a.get('fastify bare')!
    const fullF = a.get('fastify+3')!
    const frows = [
      ablationRow(
        'fastify + cookie + cors + request-context',
        fullF,
        signed(fullF.cpu - bare.cpu),
        '',
      ),
    ]
    for (const f of FASTIFY_VARIANTS) {
      const s = a.get(f.name)!
      frows.push(
        ablationRow(
          f.name,
          s,
          f.name === 'fastify bare' ? '0' : signed(s.cpu - bare.cpu),
          signed(fullF.cpu - s.cpu),
        ),
      )
    }
    console.log('\n  fastify ablation (medians):')
    console.log(
      table(['variant', 'req/s', 'µs CPU/req', 'rounds', '− bare', 'left out costs'], frows),
    )

    // The per-plugin target: single-plugin removals only (a group's cost is not one plugin's).
    const single = variants.filter((v) => v.skip.length === 1 && v.skip[0] !== 'all')
    const costs = single.map((v) => `${v.skip[0]} ${signed(fwFull.cpu - a.get(v.name)!.cpu)}`)
    const noise = Math.max(...[...a.values()].map((x) => x.cpuMax - x.cpuMin))
    console.log(
      `\nplayground-http: plugins on a route that uses none: fw all − kernel only = ${signed(fwFull.cpu - kernel.cpu)} µs CPU/req ` +
        `(fastify+3 − bare ${signed(fullF.cpu - bare.cpu)} µs); target ≤ ${TARGET_PLUGIN_US} µs per plugin; ` +
        `full − without it: ${costs.join(', ')} µs` +
        (noise > TARGET_PLUGIN_US
          ? ` (not resolved: the rounds of one server spread up to ${noise.toFixed(0)} µs)`
          : ''),
    )
    const idle = Math.max(...[...a.values(), ...m.values()].map((s) => s.othersCpu))
    console.log(
      `  the idle servers used at most ${Math.round(idle * 100)}% of a core together while one was loaded (median per server); see the rounds column for the noise: a difference smaller than the spread is not a measurement`,
    )
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    rmSync(tmp, { recursive: true, force: true })
  }
}

await main()
