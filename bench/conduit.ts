// The Conduit example (examples/conduit) under `fw serve` (production, one process, sources through
// tsx: the example is not part of the build) against a hand-written polka + pg server of the same
// two endpoints (bench/lib/server-conduit-pg.ts: the same SQL, the same JSON, the same JWT and
// stored-row check), on a PostgreSQL database of its own with 10,000 articles by 50 authors, the
// viewer following 10 of them and 20,000 favorites. Signed in (`Authorization: Token …`):
// `GET /api/articles?limit=20` (a page: one statement and the count) and `GET /api/articles/{slug}`
// (100 slugs in turn). Each server in its own child, autocannon in this process (20 connections);
// per endpoint 3 s warm-up each, then 3 rounds of 5 s alternating the order. Prints req/s, the
// server's CPU µs per request, and fw/polka+pg (median of the rounds' ratios; target ≥ 0.75).
// Run: node --import tsx -C fw-source bench/conduit.ts
import { join } from 'node:path'
import autocannon from 'autocannon'
import { silentLogger } from 'fw'
import createApp from '../examples/conduit/app.js'
import { startBaseline } from './lib/baseline-server.js'
import type { ServerChild } from './lib/child-server.js'
import { fwCommand, get, root, startFw, type FwChild } from './lib/playground-child.js'
import { ownDatabase } from './lib/product-load.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const TARGET = 0.75
const SECONDS = Number(process.env.FW_BENCH_CONDUIT_SECONDS ?? 5)
const ROUNDS = Number(process.env.FW_BENCH_CONDUIT_ROUNDS ?? 3)
const WARMUP_SECONDS = 3
const CONNECTIONS = 20
const ARTICLES = 10_000
const APP_KEY = 'base64:conduit-benchmark-application-key-0123456789'

interface Server {
  readonly name: string
  readonly url: string
  cpu(): Promise<{ user: number; system: number }>
}

/** Migrates and fills the database through the example itself; answers the viewer's token. */
async function seed(url: string): Promise<string> {
  const kernel = createApp({
    env: { DATABASE_URL: url, FW_APP_KEY: APP_KEY, NODE_ENV: 'production' },
    logger: silentLogger,
  })
  await kernel.boot()
  const db = kernel.plugin('database')
  await db.prepare()
  const res = await kernel.inject({
    method: 'POST',
    url: '/api/users',
    body: { user: { username: 'viewer', email: 'viewer@bench.test', password: 'viewer-pass' } },
  })
  if (res.status !== 201) throw new Error(`register: ${res.status} ${res.body}`)
  const token = res.json<{ user: { token: string } }>().user.token
  const run = (sql: string) => db.runStatement({ sql, bindings: [] })
  await run(`insert into users (username, email, password_hash, usertype, created_at)
    select 'author' || n, 'author' || n || '@bench.test', 'scrypt$16384$8$1$x$x', 1, now()
    from generate_series(1, 50) n`)
  await run(`insert into user_profiles (user_id, bio, image)
    select id, 'Writes about ' || id, 'https://img.test/' || id || '.png' from users where username like 'author%'`)
  await run(`insert into articles (slug, title, description, body, tag_list, author_id, created_at, updated_at)
    select 'article-' || n, 'Article ' || n, 'About ' || n, repeat('Text of the article. ', 20),
      array['tag' || (n % 20), 'tag' || (n % 7)],
      (select id from users where username = 'author' || (1 + n % 50)),
      timestamptz '2026-01-01' + n * interval '1 minute', timestamptz '2026-01-01' + n * interval '1 minute'
    from generate_series(1, ${ARTICLES}) n`)
  await run(`insert into follows (follower_id, followed_id)
    select (select id from users where username = 'viewer'), id from users
    where username in (${Array.from({ length: 10 }, (_, i) => `'author${i * 5 + 1}'`).join(', ')})`)
  await run(`insert into favorites (user_id, article_id)
    select u.id, a.id from users u join articles a on (a.id + u.id) % 26 = 0 on conflict do nothing`)
  await run('analyze')
  await kernel.close()
  return token
}

function load(server: Server, path: (i: number) => string, token: string, seconds: number) {
  let i = 0
  return new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: server.url,
        connections: CONNECTIONS,
        duration: seconds,
        headers: { authorization: `Token ${token}`, accept: 'application/json' },
        requests: [{ setupRequest: (req) => ({ ...req, path: path(i++) }) }],
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) return reject(error as Error)
        if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0)
          return reject(
            new Error(
              `${server.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
            ),
          )
        resolve(result)
      },
    )
  })
}

async function measure(
  server: Server,
  path: (i: number) => string,
  token: string,
  seconds: number,
) {
  const before = await server.cpu()
  const result = await load(server, path, token, seconds)
  const after = await server.cpu()
  const total = result.requests.total
  return {
    rps: total / result.duration,
    cpu: (after.user + after.system - before.user - before.system) / total,
  }
}

/** Both servers answer the same JSON for the same request. */
async function check(fw: Server, baseline: Server, token: string): Promise<void> {
  for (const path of [
    '/api/articles?limit=20',
    '/api/articles?limit=20&offset=40',
    '/api/articles/article-77',
  ]) {
    const [a, b] = await Promise.all(
      [fw, baseline].map((s) => get(`${s.url}${path}`, { authorization: `Token ${token}` })),
    )
    if (a!.status !== 200 || a!.body !== b!.body)
      throw new Error(
        `the servers disagree on ${path}:\n  fw ${a!.status} ${a!.body.slice(0, 400)}\n  polka+pg ${b!.status} ${b!.body.slice(0, 400)}`,
      )
  }
}

async function main(): Promise<void> {
  const command = fwCommand({ FW_BENCH_TSX: '1' })
  console.log(
    `conduit: ${ARTICLES} articles on PostgreSQL (127.0.0.1), signed in, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ${ROUNDS} × ${SECONDS} s per server and endpoint; fw and polka+pg both through tsx`,
  )
  const db = await ownDatabase()
  let fwChild: FwChild | undefined
  let baselineChild: ServerChild | undefined
  try {
    const seeded = performance.now()
    const token = await seed(db.url)
    console.log(
      `  seeded through the example in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    )
    const env = { DATABASE_URL: db.url, FW_APP_KEY: APP_KEY }
    fwChild = startFw({
      name: 'fw',
      env: { ...env, NODE_ENV: 'production', FW_APP: join(root, 'examples', 'conduit', 'app.ts') },
      probe: true,
      command,
    })
    const { url } = await fwChild.listening()
    const fw: Server = { name: 'fw', url, cpu: () => fwChild!.cpu() }
    baselineChild = await startBaseline('polka+pg', './server-conduit-pg.ts', false, env)
    const baseline: Server = baselineChild
    await check(fw, baseline, token)
    const endpoints = [
      { name: 'GET /api/articles?limit=20', path: () => '/api/articles?limit=20' },
      {
        name: 'GET /api/articles/{slug}',
        path: (i: number) => `/api/articles/article-${1 + ((i * 97) % 100) * 100}`,
      },
    ]
    for (const endpoint of endpoints) {
      for (const server of [baseline, fw])
        await measure(server, endpoint.path, token, WARMUP_SECONDS)
      const runs: Record<string, { rps: number; cpu: number }[]> = { fw: [], 'polka+pg': [] }
      const ratios: number[] = []
      for (let round = 1; round <= ROUNDS; round++) {
        const order = round % 2 === 1 ? [baseline, fw] : [fw, baseline]
        for (const server of order) {
          const run = await measure(server, endpoint.path, token, SECONDS)
          runs[server.name]!.push(run)
          console.log(
            `  ${endpoint.name} round ${round} ${server.name.padEnd(8)} ${formatInt(run.rps).padStart(6)} req/s  ${run.cpu.toFixed(0).padStart(5)} µs CPU/req`,
          )
        }
        ratios.push(runs.fw!.at(-1)!.rps / runs['polka+pg']!.at(-1)!.rps)
      }
      const rps = (n: string) => median(runs[n]!.map((r) => r.rps))
      const cpu = (n: string) => median(runs[n]!.map((r) => r.cpu))
      console.log(
        `conduit ${endpoint.name}: fw/polka+pg = ${formatRatio(median(ratios))} (target ≥ ${TARGET}) fw=${formatInt(rps('fw'))}/s polka+pg=${formatInt(rps('polka+pg'))}/s; CPU/req fw=${cpu('fw').toFixed(0)} µs polka+pg=${cpu('polka+pg').toFixed(0)} µs`,
      )
    }
  } finally {
    await Promise.all([fwChild?.stop(), baselineChild?.stop()])
    await db.drop()
  }
}

await main()
