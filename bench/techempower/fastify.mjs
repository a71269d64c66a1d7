// The Fastify 5 + pg peer, as a Fastify user writes the six tests: routes returning objects
// (Fastify serialises them), a `pg.Pool` (10 connections, as fw's), a `Server` header from an
// `onSend` hook. `node bench/techempower/fastify.mjs` with `PORT` and `DATABASE_URL`.
import Fastify from 'fastify'
import pg from 'pg'
import { fortunesPage, listenFastify, queryCount, randomId, startWhenMain } from './peer.mjs'

/** @param {{ url: string, port?: number }} options */
export async function startFastify({ url, port = 0 }) {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const app = Fastify({ logger: false })
  app.addHook('onSend', async (_request, reply) => {
    reply.header('server', 'fastify')
  })
  const readWorld = async (id) =>
    (await pool.query('select id, randomnumber as "randomNumber" from world where id = $1', [id]))
      .rows[0]

  app.get('/json', async () => ({ message: 'Hello, World!' }))
  app.get('/plaintext', async (_request, reply) => {
    reply.header('content-type', 'text/plain')
    return 'Hello, World!'
  })
  app.get('/db', async () => readWorld(randomId()))
  app.get('/queries', async (request) => {
    const n = queryCount(request.query.queries)
    return Promise.all(Array.from({ length: n }, () => readWorld(randomId())))
  })
  app.get('/fortunes', async (_request, reply) => {
    const { rows } = await pool.query('select id, message from fortune')
    reply.header('content-type', 'text/html; charset=utf-8')
    return fortunesPage(rows)
  })
  app.get('/updates', async (request) => {
    const n = queryCount(request.query.queries)
    const worlds = await Promise.all(Array.from({ length: n }, () => readWorld(randomId())))
    for (const world of worlds) world.randomNumber = randomId()
    const sorted = [...worlds].sort((a, b) => a.id - b.id)
    const values = sorted.map((_, i) => `when $${2 * i + 1}::integer then $${2 * i + 2}::integer`)
    const ids = sorted.map((_, i) => `$${2 * sorted.length + i + 1}::integer`)
    await pool.query(
      `update world set randomnumber = case id ${values.join(' ')} end where id in (${ids.join(', ')})`,
      [...sorted.flatMap((w) => [w.id, w.randomNumber]), ...sorted.map((w) => w.id)],
    )
    return worlds
  })
  return listenFastify(app, port, pool)
}

await startWhenMain(import.meta.url, 'fastify', startFastify)
