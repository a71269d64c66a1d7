import { createServer, type Server } from 'node:http'
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createTechEmpowerApp } from '../../bench/techempower/app.mjs'
import { startFastify } from '../../bench/techempower/fastify.mjs'
import { startPolka } from '../../bench/techempower/polka.mjs'
import { SCHEMA_STATEMENTS } from '../../bench/techempower/schema.mjs'
import { verifyTechEmpower, type ReadWorld } from '../../bench/techempower/verify.js'

// The TechEmpower benchmark's apps pass its verifier over real sockets: the fw app on PGlite (the
// schema made by its migration) or, with DATABASE_URL naming PostgreSQL, on a database of the
// suite's own, where the Fastify + pg and polka + pg peers are verified too. And the verifier
// catches what breaks the rules.

const test = suite('techempower verifier')

const worldFrom =
  (read: () => Promise<readonly Record<string, unknown>[]>): ReadWorld =>
  async (ids) => {
    const wanted = new Set(ids)
    const rows = await read()
    return new Map(
      rows
        .filter((r) => wanted.has(Number(r.id)))
        .map((r) => [Number(r.id), Number(r.randomnumber)]),
    )
  }

let db: TestDatabase | undefined
test.after(async () => {
  await db?.drop()
})

test('the fw app passes, and so do the peers on PostgreSQL', async () => {
  db = await createTestDatabase()
  const postgres = db.url.startsWith('postgres')
  let client: pg.Client | undefined
  if (postgres) {
    client = new pg.Client({ connectionString: db.url })
    await client.connect()
    for (const statement of SCHEMA_STATEMENTS) await client.query(statement)
  }
  const kernel = createTechEmpowerApp({ env: {}, url: db.url, migrate: !postgres })
  const closers: (() => Promise<unknown>)[] = [() => kernel.close(100)]
  try {
    await kernel.boot()
    await kernel.plugin('database').ready() // before listen, whose maintenance check reads it
    const { url } = await kernel.listen(0, '127.0.0.1')
    const readWorld = worldFrom(async () =>
      client === undefined
        ? kernel.plugin('database').runStatement({ sql: 'select * from world', bindings: [] })
        : (await client.query('select * from world')).rows,
    )
    const servers: [string, string][] = [['fw', url]]
    if (postgres) {
      const fastify = await startFastify({ url: db.url })
      closers.push(fastify.close)
      const polka = await startPolka({ url: db.url })
      closers.push(polka.close)
      servers.push(['fastify', `http://127.0.0.1:${fastify.port}`])
      servers.push(['polka', `http://127.0.0.1:${polka.port}`])
    }
    // One after the other: each checks that its updates persisted, in the same table.
    for (const [name, base] of servers)
      assert.equal(await verifyTechEmpower(base, readWorld), [], `${name} fails verification`)
  } finally {
    for (const close of closers) await close()
    await client?.end()
  }
})

test('reports a cached Date, a wrong content type, unclamped counts and unescaped fortunes', async () => {
  const fixedDate = new Date().toUTCString()
  const worlds = (n: number): string =>
    JSON.stringify(Array.from({ length: n }, (_, i) => ({ id: i + 1, randomNumber: 1 })))
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const n = Number(url.searchParams.get('queries') ?? 1)
    const body =
      url.pathname === '/fortunes'
        ? '<!doctype html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr><tr><td>11</td><td><script>alert("x")</script></td></tr></table></body></html>'
        : url.pathname === '/queries' || url.pathname === '/updates'
          ? worlds(Number.isInteger(n) && n > 0 ? n : 2)
          : url.pathname === '/db'
            ? '{"id":1,"randomNumber":1}'
            : url.pathname === '/plaintext'
              ? 'Hello, World!'
              : '{"message":"Hello, World!"}'
    res.sendDate = false
    res.writeHead(200, { server: 'wrong', date: fixedDate, 'content-type': 'text/html' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as { port: number }
    const problems = await verifyTechEmpower(`http://127.0.0.1:${port}`, async (ids) => {
      return new Map(ids.map((id) => [id, 5]))
    })
    const text = problems.join('\n')
    assert.match(text, /json: Date ".*" did not change a second later \(cached\)/)
    assert.match(text, /json: content type "text\/html" does not match/)
    assert.match(text, /queries \/queries\?queries=501: 501 objects, expected 500/)
    assert.match(text, /queries \/queries\?queries=foo: 2 objects, expected 1/)
    assert.match(text, /fortunes: a <script> tag went out unescaped/)
    assert.match(text, /fortunes: 0 rows, expected 13/)
    assert.match(text, /db: row 1 answered 1, the database holds 5/)
    assert.match(text, /updates \/updates\?queries=500: 500 rows hold another number/)
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
})

test.run()
