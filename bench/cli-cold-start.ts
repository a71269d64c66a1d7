// Cold start of the `fw` CLI: wall time of `node dist/cli/bin.js route:list` against the playground,
// median of 5 runs, against `node -e 0` measured in the same run. Builds first (`npm run build`);
// if the build fails, measures the TypeScript sources through tsx instead and says so.
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
const TARGET_MS = 400

interface Case {
  readonly label: string
  readonly argv: readonly string[]
  readonly env?: NodeJS.ProcessEnv
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Runs a command `runs` times (after one unmeasured warm-up that fills OS and tsx caches). */
function measure(c: Case): number {
  const once = (): number => {
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
  once()
  return median(Array.from({ length: runs }, once))
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
const bin = built ? ['dist/cli/bin.js'] : ['--import', 'tsx', '-C', 'fw-source', 'cli/bin.ts']
const kernel = built ? 'dist/kernel/index.js' : 'kernel/index.ts'
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
          label: 'route:list, app from TypeScript via tsx',
          argv: [...bin, 'route:list'],
          env: { FW_APP_COMPILED: '0' },
        },
      ]
    : []),
  {
    label: `route:list${built ? ', compiled app preferred' : ' from sources via tsx'}`,
    argv: [...bin, 'route:list'],
  },
]

console.log(
  `fw CLI cold start: median of ${runs} runs, node ${process.version}, ${process.platform}/${process.arch}`,
)
const results = cases.map((c) => ({ label: c.label, ms: measure(c) }))
const baseline = results[0]!.ms
const width = Math.max(...results.map((r) => r.label.length))
for (const r of results)
  console.log(
    `  ${r.label.padEnd(width)}  ${r.ms.toFixed(0).padStart(5)} ms  ×${(r.ms / baseline).toFixed(1)}`,
  )
const cli = results.at(-1)!.ms
console.log(
  `cli: route:list cold start median=${cli.toFixed(0)}ms (target < ${TARGET_MS} ms), node baseline=${baseline.toFixed(0)}ms${built ? '' : ' (sources via tsx: the build failed)'}`,
)
process.exitCode = cli < TARGET_MS ? 0 : 1
