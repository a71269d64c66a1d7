// The bare node:http + postgres.js peer, as TechEmpower's own node entries are written: one
// postgres.js connection per process (`max: 1`), every concurrent statement pipelined on it,
// handlers writing their headers and body at once with `writeHead` + `end`, the reads one by one
// and one multi-row `update … from (values …)` sorted by id for updates. `node
// bench/techempower/node-pjs.mjs` with `PORT` and `DATABASE_URL`.
import { Buffer } from 'node:buffer'
import { createServer } from 'node:http'
import postgres from 'postgres'
import { fortunesPage, queryCount, randomId, startWhenMain } from './peer.mjs'

/** @param {{ url: string, port?: number }} options */
export async function startNodePjs({ url, port = 0 }) {
  const sql = postgres(url, { max: 1 })
  const readWorld = async (id) =>
    (await sql`select id, randomnumber as "randomNumber" from world where id = ${id}`)[0]
  const readWorlds = (n) => Promise.all(Array.from({ length: n }, () => readWorld(randomId())))
  const send = (res, type, body) => {
    res.writeHead(200, {
      server: 'node',
      'content-type': type,
      'content-length': Buffer.byteLength(body),
    })
    res.end(body)
  }
  const json = (res, value) => send(res, 'application/json', JSON.stringify(value))
  const fail = (res) => (error) => {
    res.writeHead(500, { 'content-type': 'text/plain' })
    res.end(String(error?.message ?? error))
  }
  const queriesOf = (reqUrl) =>
    queryCount(new URL(reqUrl, 'http://x').searchParams.get('queries') ?? undefined)

  const routes = {
    '/json': (_req, res) => json(res, { message: 'Hello, World!' }),
    '/plaintext': (_req, res) => send(res, 'text/plain', 'Hello, World!'),
    '/db': (_req, res) => readWorld(randomId()).then((w) => json(res, w), fail(res)),
    '/queries': (req, res) => readWorlds(queriesOf(req.url)).then((w) => json(res, w), fail(res)),
    '/fortunes': (_req, res) =>
      sql`select id, message from fortune`.then(
        (rows) => send(res, 'text/html; charset=utf-8', fortunesPage(rows)),
        fail(res),
      ),
    '/updates': async (req, res) => {
      try {
        const read = await readWorlds(queriesOf(req.url))
        for (const w of read) w.randomNumber = randomId()
        const values = read.map((w) => [w.id, w.randomNumber]).sort((a, b) => a[0] - b[0])
        await sql`update world set randomnumber = (v.r)::int
          from (values ${sql(values)}) as v (id, r) where world.id = (v.id)::int`
        json(res, read)
      } catch (error) {
        fail(res)(error)
      }
    },
  }
  const server = createServer((req, res) => {
    const at = req.url.indexOf('?')
    const route = routes[at === -1 ? req.url : req.url.slice(0, at)]
    if (route !== undefined) return void route(req, res)
    res.writeHead(404, { 'content-type': 'text/plain' })
    res.end('not found')
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    port: server.address().port,
    close: async () => {
      await new Promise((resolve) => server.close(resolve))
      await sql.end()
    },
  }
}

await startWhenMain(import.meta.url, 'node:http + postgres.js', startNodePjs)
