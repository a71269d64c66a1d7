// The Fastify 5 + postgres.js peer, written the way TechEmpower's own Fastify entry is: one
// postgres.js connection per process (`max: 1`) on which every concurrent statement is pipelined
// (postgres.js prepares each statement itself), response schemas for the JSON routes (Fastify
// serialises through them), a `Server` header from an `onRequest` hook, the reads one by one as the
// rules ask and one multi-row `update … from (values …)` sorted by id for updates. The fortunes page
// is the same template literal as the other peers' (TechEmpower's entry renders handlebars through
// @fastify/view, neither of which fw depends on). `node bench/techempower/fastify-pjs.mjs` with
// `PORT` and `DATABASE_URL`.
import Fastify from 'fastify'
import postgres from 'postgres'
import { fortunesPage, listenFastify, queryCount, randomId, startWhenMain } from './peer.mjs'

const world = {
  type: 'object',
  properties: { id: { type: 'integer' }, randomNumber: { type: 'integer' } },
}

/** @param {{ url: string, port?: number }} options */
export async function startFastifyPjs({ url, port = 0 }) {
  const sql = postgres(url, { max: 1 })
  const app = Fastify({ logger: false })
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('server', 'fastify')
    done()
  })
  const readWorld = async (id) =>
    (await sql`select id, randomnumber as "randomNumber" from world where id = ${id}`)[0]
  const readWorlds = (n) => Promise.all(Array.from({ length: n }, () => readWorld(randomId())))

  app.get(
    '/json',
    {
      schema: {
        response: { 200: { type: 'object', properties: { message: { type: 'string' } } } },
      },
    },
    (_request, reply) => {
      reply.header('content-type', 'application/json').send({ message: 'Hello, World!' })
    },
  )
  app.get('/plaintext', (_request, reply) => {
    reply.header('content-type', 'text/plain').send('Hello, World!')
  })
  app.get('/db', { schema: { response: { 200: world } } }, async () => readWorld(randomId()))
  const worlds = { schema: { response: { 200: { type: 'array', items: world } } } }
  app.get('/queries', worlds, async (request) => readWorlds(queryCount(request.query.queries)))
  app.get('/fortunes', async (_request, reply) => {
    const rows = await sql`select id, message from fortune`
    reply.header('content-type', 'text/html; charset=utf-8')
    return fortunesPage(rows)
  })
  app.get('/updates', worlds, async (request) => {
    const read = await readWorlds(queryCount(request.query.queries))
    for (const w of read) w.randomNumber = randomId()
    const values = read.map((w) => [w.id, w.randomNumber]).sort((a, b) => a[0] - b[0])
    await sql`update world set randomnumber = (v.r)::int
      from (values ${sql(values)}) as v (id, r) where world.id = (v.id)::int`
    return read
  })
  return listenFastify(app, port, sql)
}

await startWhenMain(import.meta.url, 'fastify + postgres.js', startFastifyPjs)
