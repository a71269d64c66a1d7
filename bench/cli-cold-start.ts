// Cold start of the `fw` CLI: wall time of `fw --help` (listed from the command manifest, no app
// loaded) and `fw route:list` (the playground booted), built (`node dist/cli/bin.js`) and through
// tsx (`node --import tsx -C fw-source cli/bin.ts`), median of 5 runs, against `node -e 0` and
// `node --import tsx -e 0` measured in the same rounds: each round runs every case once, in turn.
// The tsx paths run fw's compiled library (cli/compile/), and once more without it
// (`FW_COMPILE_CACHE=0`, fw's modules one by one through tsx, as before it existed).
// Builds first (`npm run build`); if the build fails, measures the sources through tsx only and
// says so. Prints each figure against its target; exits 1 only when a command fails.
//
//   node --import tsx bench/cli-cold-start.ts [--runs N] [--no-build]
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const runs = runsAt === -1 ? 5 : Math.max(1, Number(args[runsAt + 1]) || 5)
/** The targets: `fw --help` < 150 ms and `fw route:list` < 250 ms built; through tsx < 350 ms. */
const TARGETS = { help: 150, routeList: 250, tsx: 350 } as const

interface Case {
  readonly label: string
  readonly argv: readonly string[]
  readonly env?: NodeJS.ProcessEnv
  /** The target in ms, when the issue set one. */
  readonly target?: number
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Runs a command once and returns its wall time in ms; throws when it fails. */
function once(c: Case): number {
  const start = performance.now()
  const result = spawnSync(process.execPath, c.argv, {
    cwd: root,
    env: { ...process.env, FORCE_COLOR: '0', ...c.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const elapsed = performance.now() - start
  if (result.status !== 0)
    throw new Error(`${c.label} exited ${result.status}: ${result.stderr.toString().trim()}`)
  return elapsed
}

/**
 * The median wall time of each case over `runs` rounds, each round running every case once in
 * turn (a drift of the machine's speed then moves every case alike), after one unmeasured round
 * that fills the OS and tsx caches and writes the command manifest.
 */
function measure(cases: readonly Case[]): number[] {
  for (const c of cases) once(c)
  const times = cases.map((): number[] => [])
  for (let round = 0; round < runs; round++) cases.forEach((c, i) => times[i]!.push(once(c)))
  return times.map(median)
}

function build(): boolean {
  if (args.includes('--no-build')) return existsSync(`${root}dist/cli/bin.js`)
  const result = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  if (result.status !== 0)
    console.log(
      `build failed, measuring the sources through tsx instead:\n${result.stderr.toString().trim()}`,
    )
  return result.status === 0
}

const built = build()
const tsx = ['--import', 'tsx', '-C', 'fw-source', 'cli/bin.ts']
const kernel = built ? 'dist/bundle/kernel-index.js' : 'kernel/index.ts'
const cases: Case[] = [
  { label: 'node -e 0 (baseline)', argv: ['-e', '0'] },
  {
    label: 'import the kernel only',
    argv: [
      ...(built ? [] : ['--import', 'tsx']),
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(`${root}${kernel}`)})`,
    ],
  },
  ...(built
    ? [
        {
          label: '--help, built (manifest)',
          argv: ['dist/cli/bin.js', '--help'],
          target: TARGETS.help,
        },
        {
          label: 'route:list, built, compiled app',
          argv: ['dist/cli/bin.js', 'route:list'],
          target: TARGETS.routeList,
        },
        {
          label: 'route:list, built, app via tsx',
          argv: ['dist/cli/bin.js', 'route:list'],
          env: { FW_APP_COMPILED: '0' },
        },
        {
          label: 'route:list, built, app via tsx, no compiled library',
          argv: ['dist/cli/bin.js', 'route:list'],
          env: { FW_APP_COMPILED: '0', FW_COMPILE_CACHE: '0' },
        },
      ]
    : []),
  { label: 'node --import tsx -e 0 (tsx baseline)', argv: ['--import', 'tsx', '-e', '0'] },
  { label: '--help, sources via tsx (manifest)', argv: [...tsx, '--help'], target: TARGETS.tsx },
  { label: 'route:list, sources via tsx', argv: [...tsx, 'route:list'], target: TARGETS.tsx },
  {
    label: 'route:list, sources via tsx, no compiled library',
    argv: [...tsx, 'route:list'],
    env: { FW_COMPILE_CACHE: '0' },
  },
]

console.log(
  `fw CLI cold start: median of ${runs} interleaved rounds, node ${process.version}, ${process.platform}/${process.arch}${built ? '' : ' (the build failed: sources via tsx only)'}`,
)
const results = measure(cases).map((ms, i) => ({ ...cases[i]!, ms }))
const baseline = results[0]!.ms
const width = Math.max(...results.map((r) => r.label.length))
for (const r of results) {
  const verdict =
    r.target === undefined ? '' : `  target < ${r.target} ms ${r.ms < r.target ? '✓' : '✗'}`
  console.log(
    `  ${r.label.padEnd(width)}  ${r.ms.toFixed(0).padStart(5)} ms  ×${(r.ms / baseline).toFixed(1)}${verdict}`,
  )
}
const figure = (label: string): string =>
  results.find((r) => r.label === label)?.ms.toFixed(0) ?? '-'
console.log(
  `cli: --help median=${figure('--help, built (manifest)')}ms route:list median=${figure('route:list, built, compiled app')}ms built; via tsx --help=${figure('--help, sources via tsx (manifest)')}ms route:list=${figure('route:list, sources via tsx')}ms; node baseline=${baseline.toFixed(0)}ms`,
)
