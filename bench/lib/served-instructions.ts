// Instructions per request of a `fw serve` child, counted by valgrind's callgrind: a figure that
// does not move with what else the machine runs (CPU time per request on these shared two-core
// machines scatters by ± 30% between rounds of the same server). Each variant is served twice
// under callgrind, loaded with `small` and then `large` requests of `GET /_demo/ping`; the
// difference of the two totals over `large - small` requests is the steady-state cost of one
// request, with boot, JIT warm-up and shutdown cancelled out. Node runs `--single-threaded` so
// that no compiler or GC thread makes the count depend on timing (`FW_BENCH_INSTR_NODE=` adds
// Node options). Two children run at a time (one per core); the load generator (autocannon,
// 4 connections) runs in this process. Only user-space instructions are counted: the kernel's
// socket work is not, so a ratio here is lower than the same ratio by CPU time.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { PING_PATH } from './ping-load.js'
import { fwCommand, startFw } from './playground-child.js'
import { targetText, type ServedVariant, type VariantRatio } from './serve-variants.js'
import { formatInt, formatRatio } from './stats.js'

const VARIANTS_APP = new URL('./playground-variants.mjs', import.meta.url).pathname
const KEY = 'bench-variants-key-0123456789abcdef0123456789'

/** Total instructions callgrind counted for one child serving `requests` pings. */
async function countServing(variant: ServedVariant, requests: number, dir: string) {
  const out = join(dir, `${variant.name.replace(/\W+/g, '-')}-${requests}.out`)
  const child = startFw({
    name: variant.name,
    env: { NODE_ENV: 'production', FW_APP: VARIANTS_APP, FW_APP_KEY: KEY, ...variant.env },
    wrapper: ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`],
    nodeArgs: [
      '--single-threaded',
      ...(process.env.FW_BENCH_INSTR_NODE ?? '').split(' ').filter((a) => a !== ''),
    ],
  })
  try {
    const { url } = await child.listening(600_000)
    const result = await autocannon({
      url: url + PING_PATH,
      connections: 4,
      amount: requests,
      timeout: 60,
    })
    const { errors, timeouts, non2xx } = result
    if (errors > 0 || timeouts > 0 || non2xx > 0 || result.requests.total !== requests) {
      throw new Error(
        `${variant.name}: ${result.requests.total}/${requests} answered, ${errors} errors, ${timeouts} timeouts, ${non2xx} non-2xx`,
      )
    }
  } finally {
    // Under valgrind, shutting down (and writing the counts) takes a while.
    await child.stop(120_000)
  }
  const totals = /^totals:\s+(\d+)/m.exec(readFileSync(out, 'utf8'))
  if (totals === null) throw new Error(`${variant.name}: callgrind wrote no totals to ${out}`)
  return Number(totals[1])
}

/** Runs `jobs` two at a time, keeping their order in the result. */
async function twoAtATime<T>(jobs: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(jobs.length)
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++
      results[index] = await jobs[index]!()
    }
  }
  await Promise.all([worker(), worker()])
  return results
}

/** Prints each variant's instructions per request and each ratio asked for (baseline / variant). */
export async function compareInstructions(options: {
  title: string
  variants: readonly ServedVariant[]
  ratios: readonly VariantRatio[]
  small: number
  large: number
}): Promise<void> {
  const command = fwCommand()
  if (!command.built) {
    throw new Error(`instructions are counted on the built CLI: ${command.note}`)
  }
  const dir = mkdtempSync(join(tmpdir(), 'fw-instructions-'))
  try {
    const jobs = options.variants.flatMap((variant) =>
      [options.small, options.large].map((n) => () => countServing(variant, n, dir)),
    )
    const totals = await twoAtATime(jobs)
    const perRequest = new Map(
      options.variants.map((v, i) => [
        v.name,
        (totals[2 * i + 1]! - totals[2 * i]!) / (options.large - options.small),
      ]),
    )
    console.log(
      `${options.title}: instructions per request (callgrind), fw serve, production, GET /_demo/ping, requests ${formatInt(options.small)} → ${formatInt(options.large)}`,
    )
    const width = Math.max(...options.variants.map((v) => v.name.length))
    for (const v of options.variants) {
      console.log(`    ${v.name.padEnd(width)} ${formatInt(perRequest.get(v.name)!).padStart(9)}`)
    }
    for (const [name, baseline, target] of options.ratios) {
      console.log(
        `    ${name} / ${baseline}: ${formatRatio(perRequest.get(baseline)! / perRequest.get(name)!)} by instructions${targetText(target)}`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
