// TechEmpower's six test types (json, plaintext, db, queries=20, fortunes, updates=20) on fw
// (bench/techempower/app.mjs: a kernel, the database plugin's `sql` template, a view) against four
// peers: Fastify 5 + pg and polka 1.0.0-next.28 + pg (bench/techempower/fastify.mjs, polka.mjs,
// each a `pg.Pool` of 10), and TechEmpower's own way, Fastify 5 + postgres.js and bare node:http +
// postgres.js with one pipelined connection per process (fastify-pjs.mjs, node-pjs.mjs), on one
// PostgreSQL database of the benchmark's own holding the TechEmpower schema and data (made here,
// dropped at the end). Each server runs in its own process (`node <file>` with `PORT` and
// `DATABASE_URL`; through tsx with the `fw-source` condition, all alike, when dist/ is not up to
// date). Before any load, bench/techempower/verify.ts checks every server against the tests'
// rules: one problem fails the benchmark. Then wrk (2 threads) at 64 and 256 connections, the
// plaintext test pipelined 16 deep (bench/techempower/pipeline.lua), with the request headers
// TechEmpower's load generator sends (`Accept`, `Connection: keep-alive`) and its 8 s timeout. As
// TechEmpower does, each test first warms every server up at the highest connection count
// (`--warmup` s each); then, per connection count, rounds of `--duration` s with the servers' order
// rotating; medians of req/s and of server CPU µs per request (utime + stime from
// /proc/<pid>/stat), and fw's ratios to each peer as the median of the rounds' ratios (the ratio
// of the whole run's medians is printed before the last line). Non-2xx answers or socket errors
// under load fail it too; a run in which no request was answered counts as 0 req/s. Before each
// run the server must answer /db within 100 ms (what earlier runs queued has drained). During each
// run, the server process's connections to PostgreSQL are counted every 250 ms (its sockets in
// /proc): the most seen are printed per server and connection count.
// Last line: `techempower: fw/fastify min <x> (<test>) fw/polka min <y> (<test>)
// fw/fastify-pjs min <z> (<test>) fw/node-pjs min <w> (<test>)`.
// With `--base <checkout>`, fw as that other checkout serves it (built: `git worktree add` of the
// commit before a change, `npm ci`, `npm run build`) runs beside the others as `before`, and
// `fw/before` is this tree's figure against it, in the same rounds.
// Run: node --import tsx -C fw-source bench/techempower.ts [--duration 3] [--rounds 2]
//      [--connections 64,256] [--tests json,db,…] [--base ../before]
//      (FW_BENCH_POSTGRES_URL: the server to use)
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { createTestDatabase } from '../plugins/database/test-database.js'
import { fwCommand, root } from './lib/playground-child.js'
import { median, sleep } from './lib/stats.js'
import { benchPostgresUrl } from './techempower/in-process.js'
import { SCHEMA_STATEMENTS } from './techempower/schema.mjs'
import { TEST_PATHS, verifyTechEmpower, type ReadWorld } from './techempower/verify.js'

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '64,256' },
    tests: { type: 'string', default: Object.keys(TEST_PATHS).join(',') },
    base: { type: 'string' },
  },
})
const DURATION = Number(options.duration)
const ROUNDS = Number(options.rounds)
const WARMUP = Number(options.warmup)
const CONNECTIONS = options.connections.split(',').map(Number)
const TESTS = options.tests.split(',') as (keyof typeof TEST_PATHS)[]
for (const t of TESTS) if (!(t in TEST_PATHS)) throw new Error(`unknown test ${t}`)

type Name = 'fw' | 'fastify' | 'polka' | 'fastify-pjs' | 'node-pjs' | 'before'
type Peer = Exclude<Name, 'fw'>
const SERVERS: (readonly [Name, string])[] = [
  ['fw', 'bench/techempower/server.mjs'],
  ['fastify', 'bench/techempower/fastify.mjs'],
  ['polka', 'bench/techempower/polka.mjs'],
  ['fastify-pjs', 'bench/techempower/fastify-pjs.mjs'],
  ['node-pjs', 'bench/techempower/node-pjs.mjs'],
]
if (options.base !== undefined)
  SERVERS.push(['before', resolve(options.base, 'bench/techempower/server.mjs')])
const PEERS = SERVERS.slice(1).map(([name]) => name) as Peer[]

const children = new Set<ChildProcess>()
let dropDatabase: (() => Promise<void>) | undefined
async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
  const drop = dropDatabase
  dropDatabase = undefined
  await drop?.()
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    cleanUp().finally(() => process.exit(130))
  })

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** CPU time of a process so far, in µs (utime + stime from /proc, clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

interface Server {
  readonly name: Name
  readonly url: string
  readonly pid: number
}

async function start(name: Name, file: string, url: string, tsx: boolean): Promise<Server> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [...(tsx ? ['--import', 'tsx', '-C', 'fw-source'] : []), resolve(root, file)],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        DATABASE_URL: url,
      },
    },
  )
  children.add(child)
  const base = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`)
    const ok = await fetch(`${base}/json`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return { name, url: base, pid: child.pid as number }
  }
  throw new Error(`${name} did not answer /json within 30 s`)
}

interface WrkResult {
  readonly requests: number
  readonly seconds: number
  readonly errors: string | undefined
}

/** The `Accept` TechEmpower's load generator sends: its plaintext one; its JSON one elsewhere. */
const ACCEPT = {
  plaintext:
    'text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7',
  other:
    'application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7',
}

function wrk(url: string, connections: number, seconds: number, pipeline: boolean) {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--timeout', '8s']
  args.push('-H', `Accept: ${pipeline ? ACCEPT.plaintext : ACCEPT.other}`)
  args.push('-H', 'Connection: keep-alive')
  if (pipeline) args.push('-s', join(root, 'bench/techempower/pipeline.lua'))
  args.push(url)
  if (pipeline) args.push('--', '16')
  return new Promise<WrkResult>((resolve, reject) => {
    execFile('/usr/bin/wrk', args, { timeout: (seconds + 30) * 1000 }, (error, stdout) => {
      if (error) return reject(error)
      const m = /(\d+) requests in ([\d.]+)(m?s)/.exec(stdout)
      if (m === null) return reject(new Error(`unreadable wrk output:\n${stdout}`))
      const errors = [
        /Socket errors: [^\n]*/.exec(stdout)?.[0],
        /Non-2xx or 3xx responses: \d+/.exec(stdout)?.[0],
      ].filter((e) => e !== undefined)
      resolve({
        requests: Number(m[1]),
        seconds: Number(m[2]) / (m[3] === 'ms' ? 1000 : 1),
        errors: errors.length > 0 ? errors.join('; ') : undefined,
      })
    })
  })
}

interface Sample {
  readonly rate: number
  readonly cpu: number
}

/**
 * Waits until `server` answers `/db` within 100 ms (at most 30 s): when wrk stops, the statements
 * its requests queued in a pool still run, and would load the next measurement.
 */
async function settle(server: Server): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    const started = Date.now()
    const ok = await fetch(`${server.url}/db`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok && Date.now() - started < 100) return
  }
}

/** The most connections each server held to PostgreSQL during a load, by `name@connections`. */
const held = new Map<string, number>()
let postgresPort = 5432

/** The server process's established TCP connections to `port` (its fds against /proc/net/tcp*). */
function connectionsTo(pid: number, port: number): number {
  const sockets = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        return ''
      }
    })()
    if (link.startsWith('socket:[')) sockets.add(link.slice(8, -1))
  }
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  let n = 0
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'latin1').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      // remote address, state 01 (established), inode
      if (f[2]?.endsWith(hex) && f[3] === '01' && sockets.has(f[9] ?? '')) n++
    }
  }
  return n
}

/** Samples `server`'s connections to PostgreSQL every 250 ms while a load runs. */
function watchConnections(server: Server, connections: number, port: number): () => void {
  const key = `${server.name}@${connections}`
  const sample = () => held.set(key, Math.max(held.get(key) ?? 0, connectionsTo(server.pid, port)))
  const timer = setInterval(sample, 250)
  return () => {
    clearInterval(timer)
    sample()
  }
}

async function load(server: Server, path: string, connections: number, seconds: number) {
  await settle(server)
  const stopWatching = watchConnections(server, connections, postgresPort)
  const before = cpuMicros(server.pid)
  const r = await wrk(server.url + path, connections, seconds, path === '/plaintext')
  const cpu = cpuMicros(server.pid) - before
  stopWatching()
  const at = `${server.name} ${path} at ${connections} connections`
  if (r.errors !== undefined) throw new Error(`${at}: ${r.errors}`)
  // Nothing answered within the run (statements queued behind a busy database): 0 req/s, no CPU
  // figure, and the ratios show it.
  if (r.requests === 0) console.log(`  ${at}: no request answered in ${seconds} s`)
  return { rate: r.requests / r.seconds, cpu: r.requests === 0 ? NaN : cpu / r.requests }
}

/**
 * fw's req/s over `peer`'s, as the median of the rounds' ratios: the servers of one round are
 * measured within seconds of each other, so a change of the machine's speed between rounds (on
 * these shared machines the same server's rate moves by a quarter from one round to the next)
 * falls on both sides of each ratio. A ratio of two medians taken over the whole run would compare
 * moments of different load. A round in which a server answered nothing
 * counts as 0 req/s.
 */
function pairedRatio(samples: ReadonlyMap<Name, readonly Sample[]>, peer: Peer) {
  const fw = samples.get('fw') ?? []
  const other = samples.get(peer) ?? []
  return median(
    fw.map((s, round) => {
      const rate = (other[round] as Sample).rate
      return rate > 0 ? s.rate / rate : s.rate > 0 ? Infinity : 1
    }),
  )
}

/** The median of the runs that answered something (NaN when none did). */
function cpuMedian(values: readonly number[]): number {
  const answered = values.filter((x) => !Number.isNaN(x))
  return answered.length === 0 ? NaN : median(answered)
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US')

async function main(): Promise<void> {
  const db = await createTestDatabase({ DATABASE_URL: benchPostgresUrl() })
  postgresPort = Number(new URL(db.url).port || 5432)
  dropDatabase = () => db.drop()
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  for (const statement of SCHEMA_STATEMENTS) await client.query(statement)
  const readWorld: ReadWorld = async (ids) => {
    const { rows } = await client.query<{ id: number; randomnumber: number }>(
      'select id, randomnumber from world where id = any($1::integer[])',
      [ids],
    )
    return new Map(rows.map((r) => [r.id, r.randomnumber]))
  }

  const command = fwCommand()
  const tsx = !command.built
  console.log(
    `techempower: ${tsx ? 'sources through tsx (dist/ not up to date), all servers alike' : 'built fw (dist/), plain node'}; node ${process.version}; wrk 2 threads; ${ROUNDS} × ${DURATION} s per server, test and connection count`,
  )
  const servers = await Promise.all(SERVERS.map(([n, f]) => start(n, f, db.url, tsx)))

  let failed = false
  for (const server of servers) {
    const problems = await verifyTechEmpower(server.url, readWorld)
    console.log(`verify ${server.name}: ${problems.length === 0 ? 'passes' : 'FAILS'}`)
    for (const p of problems) console.log(`  ${p}`)
    failed ||= problems.length > 0
  }
  await client.end()
  if (failed) throw new Error('verification failed: not measuring')

  const rows: {
    test: string
    connections: number
    by: Record<Name, Sample>
    /** fw's req/s over each peer's, round by round (see `pairedRatio`). */
    paired: Record<Peer, number>
  }[] = []
  for (const test of TESTS) {
    const path = TEST_PATHS[test]
    // TechEmpower warms a test up at its highest concurrency before measuring any level.
    if (WARMUP > 0) for (const s of servers) await load(s, path, Math.max(...CONNECTIONS), WARMUP)
    for (const [i, connections] of CONNECTIONS.entries()) {
      const samples = new Map<Name, Sample[]>(servers.map((s) => [s.name, []]))
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < servers.length; k++) {
          const s = servers[(k + round + i) % servers.length] as Server
          samples.get(s.name)?.push(await load(s, path, connections, DURATION))
        }
      }
      const by = Object.fromEntries(
        [...samples].map(([name, list]) => [
          name,
          {
            rate: median(list.map((x) => x.rate)),
            cpu: cpuMedian(list.map((x) => x.cpu)),
          },
        ]),
      ) as Record<Name, Sample>
      const paired = Object.fromEntries(
        PEERS.map((peer) => [peer, pairedRatio(samples, peer)]),
      ) as Record<Peer, number>
      rows.push({ test, connections, by, paired })
      const cell = (name: Name) =>
        `${name} ${fmt(by[name].rate).padStart(7)} ${by[name].cpu.toFixed(0).padStart(4)} µs`
      console.log(
        `  ${test.padEnd(9)} c=${String(connections).padEnd(3)}  ${SERVERS.map(([name]) => cell(name)).join('  ')}  ${PEERS.map((peer) => `fw/${peer} ${paired[peer].toFixed(2)}`).join('  ')}`,
      )
    }
  }
  const lowest = (ratioOf: (r: (typeof rows)[number]) => number): string => {
    let min = { ratio: Infinity, at: '' }
    for (const r of rows) {
      const ratio = ratioOf(r)
      if (ratio < min.ratio) min = { ratio, at: `${r.test}@${r.connections}` }
    }
    return `${min.ratio.toFixed(2)} (${min.at})`
  }
  const lowestOf = (of: (r: (typeof rows)[number], peer: Peer) => number) =>
    PEERS.map((peer) => `fw/${peer} min ${lowest((r) => of(r, peer))}`).join(' ')
  console.log(`  of the medians: ${lowestOf((r, peer) => r.by.fw.rate / r.by[peer].rate)}`)
  console.log(
    `  connections held to PostgreSQL (most seen): ${[...held].map(([at, n]) => `${at} ${n}`).join(', ')}`,
  )
  console.log(`techempower: ${lowestOf((r, peer) => r.paired[peer])}`)
}

try {
  await main()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  await cleanUp()
}
