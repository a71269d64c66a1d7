// A new app as a user makes one, timed phase by phase: fw packed (`npm pack` of the built package
// into a temporary folder), `npx --package=<tarball> fw new app --fw file:<tarball>`, `npm install`
// in the app (npm's cache warm: `--prefer-offline`), then `npm run dev` from its spawn to the first
// 200 of `GET /` (the embedded database created on the way). Prints each phase and the total
// against the target, fw new + npm install + first page < 30 s; the packing is not counted. Each
// run starts from an empty folder; everything is removed afterwards. A first run that fills npm's
// cache is slower: `--runs 2` shows both.
//
//   node --import tsx -C fw-source bench/new-app.ts [--runs N]
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { INSTALL_FLAGS, startDev, timedRun } from './lib/new-app.js'
import { root } from './lib/playground-child.js'
import { median } from './lib/stats.js'

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const RUNS = runsAt === -1 ? 1 : Math.max(1, Number(args[runsAt + 1]) || 1)
const TARGET_MS = 30_000

if (!existsSync(join(root, 'dist', 'bundle', 'cli-cli.js')))
  throw new Error('dist/ is not built: run `npm run build` first (the tarball is packed from it)')

const work = mkdtempSync(join(tmpdir(), 'fw-bench-new-app-'))
const phases: Record<string, number[]> = { new: [], install: [], 'first page': [], total: [] }
const cleanUp = (): void => rmSync(work, { recursive: true, force: true })
process.once('SIGINT', () => {
  cleanUp()
  process.exit(130)
})
try {
  await timedRun('npm', ['pack', '--ignore-scripts', '--pack-destination', work], root)
  const tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz'))!,
  )
  console.log(`new-app: ${RUNS} run(s) of fw new + npm install + npm run dev's first page`)
  for (let run = 1; run <= RUNS; run++) {
    const dir = join(work, `run-${run}`)
    const app = join(dir, 'app')
    mkdirSync(dir)
    // In an empty folder, as `npx fw new` in a user's projects folder runs.
    const fwNew = await timedRun(
      'npx',
      ['--yes', `--package=${tarball}`, 'fw', 'new', 'app', '--fw', `file:${tarball}`],
      dir,
    )
    const install = await timedRun('npm', INSTALL_FLAGS, app)
    const dev = await startDev(app)
    await dev.stop()
    const total = fwNew + install + dev.firstPageMs
    const figures = { new: fwNew, install, 'first page': dev.firstPageMs, total }
    for (const [name, ms] of Object.entries(figures)) phases[name]!.push(ms)
    const line = Object.entries(figures)
      .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')
    console.log(`new-app: run ${run}: ${line}`)
  }
} finally {
  cleanUp()
}
const total = median(phases.total!)
const each = Object.entries(phases)
  .map(([name, values]) => `${name} ${(median(values) / 1000).toFixed(1)} s`)
  .join(', ')
console.log(
  `new-app: median ${each} (target total < ${TARGET_MS / 1000} s: ${total < TARGET_MS ? 'met' : 'missed'})`,
)
