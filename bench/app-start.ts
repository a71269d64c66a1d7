// Start-up of fw's commands against Node's own, measured in the same run: `node -e 0`, then built
// `fw --help` and `fw route:list` in the repository (the playground), and `fw serve` of the
// playground (production) on PostgreSQL from the spawn to its first 200 on `GET /_demo/ping`, and
// `npm run dev` of an app as `fw new` makes it (installed from fw's packed tarball, its embedded
// database made by the warm-up round) from the spawn to its first 200 on `GET /`, and `fw make:entity`
// in that app (a new name each round, its files removed after the timing).
// Rounds interleave the cases (node, help, route:list, serve, node, …), so a drift of the machine's
// speed moves them alike; each figure is the median of its runs and the median of its ratios to the
// `node -e 0` of the same round. One unmeasured round first: it fills the OS caches, writes the
// command manifest, migrates and seeds the benchmark's own PostgreSQL database and creates the
// app's embedded one. Targets (ratios to `node -e 0`): serve ≤ 8×, --help, route:list and
// make:entity ≤ 3×, dev ≤ 12×. The built CLI needs an
// up-to-date dist/ (`npm run build`); otherwise the sources run through tsx, and it says so.
//
//   node --import tsx -C fw-source bench/app-start.ts [--runs N]
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { appEnv, packedApp, startDev } from './lib/new-app.js'
import { firstOk, fwCommand, root, startFw, type FwCommand } from './lib/playground-child.js'
import { ownDatabase } from './lib/product-load.js'
import { median } from './lib/stats.js'

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const RUNS = runsAt === -1 ? 7 : Math.max(1, Number(args[runsAt + 1]) || 7)
const TARGETS: Readonly<Record<string, number>> = {
  help: 3,
  'route:list': 3,
  serve: 8,
  dev: 12,
  'make:entity': 3,
}

/** A command run to its end in `cwd`: its wall time in ms and its output; throws when it fails. */
function run(
  label: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): { ms: number; stdout: string } {
  const start = performance.now()
  const result = spawnSync(process.execPath, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const ms = performance.now() - start
  if (result.status !== 0)
    throw new Error(`${label} exited ${result.status}: ${result.stderr.toString().trim()}`)
  return { ms, stdout: result.stdout.toString() }
}

/** A command of the repository run to its end: its wall time in ms. */
function timed(label: string, argv: readonly string[], env: NodeJS.ProcessEnv = {}): number {
  return run(label, argv, { ...process.env, FORCE_COLOR: '0', FW_CONFIG: '', ...env }, root).ms
}

let made = 0
/** `fw make:entity` in the new app, as its user runs it; the files it wrote are removed after. */
function makeEntity(dir: string): number {
  const bin = join(dir, 'node_modules', '.bin', 'fw')
  const name = `BenchEntity${++made}`
  const { ms, stdout } = run('fw make:entity', [bin, 'make:entity', name], appEnv(), dir)
  for (const [, file] of stdout.matchAll(/^created (.+)$/gm)) rmSync(join(dir, file!))
  return ms
}

/** `fw serve` from the spawn to its first 200; the child is stopped before the next case. */
async function serve(command: FwCommand, databaseUrl: string): Promise<number> {
  const child = startFw({
    name: 'serve',
    command,
    env: { DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
  })
  try {
    const { url } = await child.listening()
    const { at } = await firstOk(`${url}/_demo/ping`)
    return at - child.spawnedAt
  } finally {
    await child.stop()
  }
}

const command = fwCommand()
console.log(`app-start: ${command.note}; ${RUNS} rounds after one warm-up`)
const db = await ownDatabase()
const app = await packedApp().catch(async (error: unknown) => {
  await db.drop()
  throw error
})
const production = { NODE_ENV: 'production' }
const cases: Record<string, () => Promise<number> | number> = {
  'node -e 0': () => timed('node -e 0', ['-e', '0']),
  // The environment `fw serve` gets: the command manifest `--help` lists from is keyed by
  // NODE_ENV, and a serve under another would rewrite it each round.
  help: () => timed('fw --help', [...command.argv, '--help'], production),
  'route:list': () =>
    timed('fw route:list', [...command.argv, 'route:list'], {
      ...production,
      DATABASE_URL: db.url,
    }),
  serve: () => serve(command, db.url),
  dev: async () => {
    const dev = await startDev(app.dir)
    await dev.stop()
    return dev.firstPageMs
  },
  'make:entity': () => makeEntity(app.dir),
}
const times: Record<string, number[]> = {}
try {
  for (let round = 0; round <= RUNS; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const ms = await run()
      if (round > 0) (times[name] ??= []).push(ms)
    }
  }
} finally {
  app.cleanUp()
  await db.drop()
}

const base = times['node -e 0']!
for (const [name, values] of Object.entries(times)) {
  const ratio = median(values.map((v, i) => v / base[i]!))
  const target = TARGETS[name]
  const verdict =
    target === undefined ? '' : ` (target ≤ ${target}×: ${ratio <= target ? 'met' : 'missed'})`
  const range = `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`
  console.log(
    `app-start: ${name.padEnd(10)} median=${Math.round(median(values))}ms [${range}] ${ratio.toFixed(2)}× node -e 0${verdict}`,
  )
}
