// Playground cold start: wall time from spawning `fw serve --port 0` to the first 200 from
// `GET /_demo/ping`, median of 5, on embedded PGlite (a data directory in a temp folder) and on
// PostgreSQL (a database of its own), each as a restart (the database already migrated and seeded
// by an earlier start: the usual start) and as a fresh start (an empty database: migrations and
// the seed of 1,000 products included). Baselines in the same run: `node -e 0`, and `fw serve` of a
// bare app (kernel and one route, no plugin, no database). The built CLI when dist/ is up to date,
// else the sources through tsx (it says which). Development mode, as `npm run playground`.
// After the ping it also waits for `GET /api/v1/products/1000` (the seed is there, the database
// answers) and prints that time too; it stops each child (SIGTERM) before the next start.
// A sixth case, `postgresql down`, starts against a PostgreSQL URL whose port refuses connections:
// the app must listen and answer the ping anyway (target < 2 s; the database is retried behind it).
// Prints `playground-start: pglite restart median=…ms fresh=…ms (target < 3000 ms); postgresql …`.
// Run: node --import tsx -C fw-source bench/playground-start.ts [--runs N]
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { TestDatabase } from 'fw/plugins/database'
import { firstOk, fwCommand, startFw } from './lib/playground-child.js'
import { checkProduct, ownDatabase, PRODUCT_HEADERS } from './lib/product-load.js'
import { median } from './lib/stats.js'

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const RUNS = runsAt === -1 ? 5 : Math.max(1, Number(args[runsAt + 1]) || 5)
const TARGET_PGLITE_MS = 3000
const TARGET_POSTGRESQL_MS = 1500
const TARGET_DOWN_MS = 2000
/** Bounds every wait: a start that hangs fails the benchmark instead of hanging it. */
const START_WITHIN_MS = 30_000
const PING = '{"hello":"world","n":1}'
const BARE_APP = fileURLToPath(new URL('./lib/bare-app.mjs', import.meta.url))

/** One start, in milliseconds from the spawn. */
interface Start {
  /** The `listening on` line on stdout. */
  readonly listening: number
  /** The first 200 from /_demo/ping: the figure. */
  readonly ping: number
  /** The first 200 from /api/v1/products/1000 (apps with the database only). */
  readonly product?: number
}

type CaseName =
  | 'node'
  | 'bare'
  | 'pglite restart'
  | 'pglite fresh'
  | 'postgresql restart'
  | 'postgresql fresh'
  | 'postgresql down'

const command = fwCommand()
const temp = mkdtempSync(join(tmpdir(), 'fw-bench-start-'))
const databases: TestDatabase[] = []
process.once('exit', () => rmSync(temp, { recursive: true, force: true }))

/** `node -e 0`: the floor of any Node process start on this machine. */
function nodeBaseline(): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    const timer = setTimeout(() => child.kill('SIGKILL'), START_WITHIN_MS)
    child.once('error', reject)
    child.once('exit', (code) => {
      clearTimeout(timer)
      const ms = performance.now() - started
      if (code === 0) resolve({ listening: ms, ping: ms })
      else reject(new Error(`node -e 0 exited ${code}`))
    })
  })
}

/** Spawns `fw serve` with `env`, waits for the first 200s, stops it (SIGTERM: a clean shutdown). */
async function serve(name: string, env: Record<string, string>, database: boolean): Promise<Start> {
  const child = startFw({ name, env: { NODE_ENV: 'development', ...env }, command })
  try {
    const { url, at } = await child.listening(START_WITHIN_MS)
    const ping = await firstOk(`${url}/_demo/ping`, {}, START_WITHIN_MS, 10)
    // Development mode: the debug toolbar adds `_debug`; the rest must be the demo body.
    const { _debug: _annotations, ...pinged } = JSON.parse(ping.body) as Record<string, unknown>
    if (JSON.stringify(pinged) !== PING) throw new Error(`/_demo/ping answered ${ping.body}`)
    let product: number | undefined
    if (database) {
      const res = await firstOk(`${url}/api/v1/products/1000`, PRODUCT_HEADERS, START_WITHIN_MS, 10)
      checkProduct(name, 1000, res.body)
      product = res.at - child.spawnedAt
    }
    return {
      listening: at - child.spawnedAt,
      ping: ping.at - child.spawnedAt,
      ...(product === undefined ? {} : { product }),
    }
  } catch (error) {
    // The cause says what went wrong; the child's output is added unless the cause carries it.
    const output = (error as Error).message.includes(child.output())
      ? ''
      : `; its output:\n${child.output()}`
    throw new Error(`${name} failed${output}`, { cause: error })
  } finally {
    await child.stop(10_000)
  }
}

let freshDirs = 0
async function pgliteFresh(): Promise<Start> {
  const dir = join(temp, `fresh-${++freshDirs}`)
  try {
    return await serve('pglite fresh', { DATABASE_URL: `pglite://${dir}` }, true)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgresqlFresh(): Promise<Start> {
  const db = await ownDatabase()
  try {
    return await serve('postgresql fresh', { DATABASE_URL: db.url }, true)
  } finally {
    await db.drop()
  }
}

/** A loopback port nothing listens on: connections to it are refused. */
async function refusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function main(): Promise<void> {
  console.log(
    `playground-start: spawn → first 200 from GET /_demo/ping, median of ${RUNS}, development mode, node ${process.version}`,
  )
  console.log(`  fw: ${command.note}`)
  // The databases the restarts start on: migrated and seeded by a first (unmeasured) start, which
  // also warms the OS caches for everything else.
  const pgliteDir = join(temp, 'restart')
  const postgres = await ownDatabase()
  databases.push(postgres)
  await nodeBaseline()
  await serve('bare (warm-up)', { FW_APP: BARE_APP }, false)
  await serve('pglite (seeding)', { DATABASE_URL: `pglite://${pgliteDir}` }, true)
  await serve('postgresql (seeding)', { DATABASE_URL: postgres.url }, true)

  const cases: Record<CaseName, () => Promise<Start>> = {
    node: nodeBaseline,
    bare: () => serve('bare', { FW_APP: BARE_APP }, false),
    'pglite restart': () =>
      serve('pglite restart', { DATABASE_URL: `pglite://${pgliteDir}` }, true),
    'pglite fresh': pgliteFresh,
    'postgresql restart': () => serve('postgresql restart', { DATABASE_URL: postgres.url }, true),
    'postgresql fresh': postgresqlFresh,
    'postgresql down': async () =>
      serve(
        'postgresql down',
        { DATABASE_URL: `postgresql://postgres@127.0.0.1:${await refusedPort()}/down` },
        false,
      ),
  }
  const names = Object.keys(cases) as CaseName[]
  const starts = Object.fromEntries(names.map((n) => [n, [] as Start[]])) as Record<
    CaseName,
    Start[]
  >
  for (let round = 0; round < RUNS; round++) {
    // Interleaved, so a slow spell of the machine spreads over every case.
    for (const name of names) starts[name].push(await cases[name]())
  }

  const ms = (n: number | undefined): string => (n === undefined ? '' : `${n.toFixed(0)} ms`)
  const med = (name: CaseName, key: keyof Start): number | undefined => {
    const values = starts[name].map((s) => s[key]).filter((v): v is number => v !== undefined)
    return values.length === 0 ? undefined : median(values)
  }
  const baseline = med('node', 'ping')!
  console.log(
    `  ${'case'.padEnd(20)} ${'listening'.padStart(10)} ${'first ping'.padStart(11)} ${'first product'.padStart(14)}   runs (first ping)`,
  )
  for (const name of names) {
    const label = name === 'node' ? 'node -e 0 (exit)' : name === 'bare' ? 'bare fw serve' : name
    console.log(
      `  ${label.padEnd(20)} ${ms(name === 'node' ? undefined : med(name, 'listening')).padStart(10)} ${ms(med(name, 'ping')).padStart(11)} ${ms(med(name, 'product')).padStart(14)}   ` +
        `${starts[name].map((s) => s.ping.toFixed(0)).join(', ')}  ×${(med(name, 'ping')! / baseline).toFixed(1)}`,
    )
  }
  const figure = (name: CaseName): string => med(name, 'ping')!.toFixed(0)
  console.log(
    `playground-start: pglite restart median=${figure('pglite restart')}ms fresh=${figure('pglite fresh')}ms (target < ${TARGET_PGLITE_MS} ms); ` +
      `postgresql restart=${figure('postgresql restart')}ms fresh=${figure('postgresql fresh')}ms (target < ${TARGET_POSTGRESQL_MS} ms); ` +
      `postgresql down=${figure('postgresql down')}ms (target < ${TARGET_DOWN_MS} ms); ` +
      `node -e 0=${figure('node')}ms, bare fw serve=${figure('bare')}ms${command.built ? '' : ' (sources through tsx)'}`,
  )
}

try {
  await main()
} finally {
  await Promise.all(databases.map((db) => db.drop()))
  rmSync(temp, { recursive: true, force: true })
}
