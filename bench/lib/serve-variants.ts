// Interleaved load rounds on several `fw serve` children of bench/lib/playground-variants.mjs,
// `GET /_demo/ping` unless told another route, compared by server CPU time per request (the
// steadier figure) and req/s, medians: what bench/telemetry.ts and bench/admin.ts share.
import { checkPing, loadPing, type LoadedServer, type LoadRun } from './ping-load.js'
import { join } from 'node:path'
import { startFw } from './playground-child.js'
import { formatInt, formatRatio } from './stats.js'

const VARIANTS_APP = new URL('./playground-variants.mjs', import.meta.url).pathname
const KEY = 'bench-variants-key-0123456789abcdef0123456789'

/** One server: its name and what the variants factory reads from the environment. */
export interface ServedVariant {
  readonly name: string
  readonly env: Readonly<Record<string, string>>
  /** Another checkout to serve from (its built CLI, its app), e.g. the tree before a change. */
  readonly checkout?: string
  /** Serve the checkout's own app (`fw.app` of its package.json) instead of the variants factory. */
  readonly ownApp?: boolean
}

/** The route the variants are loaded on: how to check one answer, and one load round. */
export interface VariantRoute {
  /** For the printed title (`GET /_demo/ping`). */
  readonly label: string
  /** Throws unless the server answers the route as expected. */
  check(server: LoadedServer): Promise<unknown>
  /** One round of `seconds` at 50 connections. */
  load(server: LoadedServer, seconds: number): Promise<LoadRun>
}

/** `GET /_demo/ping` (bench/lib/ping-load.ts): the default route. */
export const PING_ROUTE: VariantRoute = {
  label: 'GET /_demo/ping',
  check: checkPing,
  load: (server, seconds) => loadPing(server, { seconds, connections: 50 }),
}

/** `FW_BENCH_SKIP` of a variant without the database plugins (bench/lib/playground-variants.mjs). */
export const NO_DATABASE = 'database,auth,api,list,playground'

/** Rounds and seconds a round from `<prefix>_ROUNDS` and `<prefix>_SECONDS`: 5 rounds of 3 s else. */
export function roundsFromEnv(prefix: string): { rounds: number; seconds: number } {
  return {
    rounds: Number(process.env[`${prefix}_ROUNDS`] ?? 5),
    seconds: Number(process.env[`${prefix}_SECONDS`] ?? 3),
  }
}

/** `[variant, baseline, target]`: a ratio to print, against its target when the issue sets one. */
export type VariantRatio = readonly [variant: string, baseline: string, target?: number]

/** ` (target ≥ 0.85)`, or nothing when there is no target. */
export function targetText(target: number | undefined): string {
  return target === undefined ? '' : ` (target ≥ ${target})`
}

/** Loads each variant in interleaved rounds; prints each one's figures and each ratio asked for. */
export async function compareVariants(options: {
  title: string
  variants: readonly ServedVariant[]
  /** The ratios baseline CPU / variant CPU (and req/s) to print. */
  ratios: readonly VariantRatio[]
  rounds: number
  seconds: number
  /** Default {@link PING_ROUTE}. */
  route?: VariantRoute
}): Promise<void> {
  const route = options.route ?? PING_ROUTE
  // FW_BENCH_NODE_ARGS: Node options for every child alike (say `--single-threaded-gc`: on two
  // cores, V8's parallel GC helpers compete with the load generator and the figures scatter).
  const nodeArgs = (process.env.FW_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
  const served = await Promise.all(
    options.variants.map(async ({ name, env, checkout, ownApp }) => {
      const child = startFw({
        name,
        env: {
          NODE_ENV: 'production',
          ...(ownApp === true ? {} : { FW_APP: VARIANTS_APP }),
          FW_APP_KEY: KEY,
          ...env,
        },
        probe: true,
        nodeArgs,
        ...(checkout === undefined
          ? {}
          : {
              cwd: checkout,
              command: {
                built: true,
                argv: [join(checkout, 'dist', 'cli', 'bin.js')],
                note: `built CLI of ${checkout}`,
              },
            }),
      })
      const { url } = await child.listening(60_000)
      return { name, url, cpu: () => child.cpu(), stop: () => child.stop() }
    }),
  )
  try {
    const runs = new Map<string, LoadRun[]>(served.map((s) => [s.name, []]))
    for (const server of served) {
      await route.check(server)
      await route.load(server, 2) // warm-up
    }
    for (let round = 0; round < options.rounds; round++) {
      for (let i = 0; i < served.length; i++) {
        const server = served[(i + round) % served.length]!
        runs.get(server.name)!.push(await route.load(server, options.seconds))
      }
    }
    const median = (name: string, of: (r: LoadRun) => number): number => {
      const sorted = runs
        .get(name)!
        .map(of)
        .sort((a, b) => a - b)
      return sorted[Math.floor(sorted.length / 2)]!
    }
    const cpu = (name: string) => median(name, (r) => r.cpuPerRequest)
    const rps = (name: string) => median(name, (r) => r.rps)
    console.log(
      `${options.title}: fw serve, production, ${route.label}, ${options.rounds} interleaved rounds of ${options.seconds} s, 50 connections${nodeArgs.length > 0 ? `, node ${nodeArgs.join(' ')}` : ''}`,
    )
    const width = Math.max(...served.map((s) => s.name.length))
    for (const s of served) {
      console.log(
        `    ${s.name.padEnd(width)} ${cpu(s.name).toFixed(1).padStart(6)} µs CPU/req   ${formatInt(rps(s.name)).padStart(7)} req/s`,
      )
    }
    for (const [name, baseline, target] of options.ratios) {
      console.log(
        `    ${name} / ${baseline}: ${formatRatio(cpu(baseline) / cpu(name))} by CPU, ${formatRatio(rps(name) / rps(baseline))} by req/s${targetText(target)}`,
      )
    }
  } finally {
    await Promise.all(served.map((s) => s.stop()))
  }
}
