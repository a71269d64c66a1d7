// CPU a statement costs through MikroORM (knex, node-pg) on PostgreSQL, with the database plugin's
// timeouts on and off: `database.statement_timeout` (the server's `statement_timeout`, and the
// plugin's client-side timeout: each statement joins the list of those in flight under one timer;
// until 2026-11-27, node-pg's `query_timeout`, one timer armed and cleared per statement) and
// `database.acquire_timeout` (knex's pool waits for a connection that long). Each variant runs in a child process of its own, the
// variants alternating round by round; each child opens the plugin on the database, runs 20,000
// statements untimed, then `--statements` more (`select 1`, 8 at a time through
// `em.getConnection().execute`) and reports its CPU time (all threads) per statement, the
// statements a second and V8's full collections meanwhile. Not part of `npm run bench`; the read
// pool (`sql`) does not take this path.
//
// Run: DATABASE_URL=postgresql://… node bench/tools/orm-timeouts.mjs [--statements 100000] [--rounds 2]
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values: options } = parseArgs({
  options: {
    statements: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '2' },
    child: { type: 'string' },
  },
})
const url = process.env.DATABASE_URL
if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) {
  console.error('orm-timeouts: DATABASE_URL must name a PostgreSQL database')
  process.exit(2)
}
const statements = Number(options.statements)
const rounds = Number(options.rounds)
if (!(statements > 0) || !(rounds > 0)) {
  console.error('usage: node bench/tools/orm-timeouts.mjs [--statements n] [--rounds n]')
  process.exit(2)
}

/** Seconds of `statement_timeout` and `acquire_timeout` per variant (0: off). */
const VARIANTS = {
  'both 5 s': [5, 5],
  'statement 5 s': [5, 0],
  'acquire 5 s': [0, 5],
  neither: [0, 0],
}

if (options.child !== undefined) {
  const [statement, acquire] = VARIANTS[options.child]
  const { PerformanceObserver, performance } = await import('node:perf_hooks')
  const { createKernel, silentLogger } = await import('fw')
  const { default: database } = await import('fw/plugins/database')
  const kernel = createKernel({
    logger: silentLogger,
    env: {},
    root: '/nonexistent/fw-bench',
    config: { database: { statement_timeout: statement, acquire_timeout: acquire } },
  })
  kernel.register(database, { url, entities: [] })
  await kernel.boot()
  const db = kernel.plugin('database')
  await db.ready()
  const connection = db.orm.em.getConnection()
  const run = async (n) => {
    let started = 0
    const worker = async () => {
      while (started++ < n) await connection.execute('select 1 as x')
    }
    await Promise.all(Array.from({ length: 8 }, worker))
  }
  await run(20_000)
  let full = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.detail?.kind === 4) full++
  })
  observer.observe({ entryTypes: ['gc'] })
  const cpu = process.cpuUsage()
  const start = performance.now()
  await run(statements)
  const used = process.cpuUsage(cpu)
  const seconds = (performance.now() - start) / 1000
  observer.disconnect()
  console.log(
    JSON.stringify({
      cpu: (used.user + used.system) / statements,
      rate: statements / seconds,
      full,
    }),
  )
  await kernel.close()
  process.exit(0)
}

console.log(
  `orm-timeouts: ${statements} statements a run (select 1, 8 at a time, after 20,000 untimed), ${rounds} rounds, node ${process.version}`,
)
const results = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]))
for (let round = 0; round < rounds; round++) {
  for (const name of Object.keys(VARIANTS)) {
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', name, '--statements', String(statements)],
      { encoding: 'utf8', env: process.env },
    )
    const line = child.stdout.trim().split('\n').at(-1) ?? ''
    if (child.status !== 0 || !line.startsWith('{')) {
      console.error(`orm-timeouts: the ${name} run failed:\n${child.stderr}`)
      process.exit(1)
    }
    const result = JSON.parse(line)
    results[name].push(result)
    console.log(
      `  round ${round + 1}  ${name.padEnd(13)} ${result.cpu.toFixed(1).padStart(6)} µs CPU/statement ${Math.round(result.rate).toLocaleString('en-US').padStart(8)} statements/s  full collections ${result.full}`,
    )
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const cpu = (name) => median(results[name].map((r) => r.cpu))
console.log(
  `orm-timeouts: CPU a statement, neither/both ${(cpu('neither') / cpu('both 5 s')).toFixed(2)}, neither/statement ${(cpu('neither') / cpu('statement 5 s')).toFixed(2)}, neither/acquire ${(cpu('neither') / cpu('acquire 5 s')).toFixed(2)}`,
)
