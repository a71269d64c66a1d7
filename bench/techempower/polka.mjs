// The polka 1.0.0-next.28 + pg peer, as a polka user writes the six tests: handlers writing with
// `setHeader` + `end`, a `pg.Pool` (10 connections, as fw's). `node bench/techempower/polka.mjs`
// with `PORT` and `DATABASE_URL`.
import { Buffer } from 'node:buffer'
import polka from 'polka'
import pg from 'pg'
import { fortunesPage, queryCount, randomId, startWhenMain } from './peer.mjs'

/** @param {{ url: string, port?: number }} options */
export async function startPolka({ url, port = 0 }) {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const readWorld = async (id) =>
    (await pool.query('select id, randomnumber as "randomNumber" from world where id = $1', [id]))
      .rows[0]
  const send = (res, type, body) => {
    res.setHeader('server', 'polka')
    res.setHeader('content-type', type)
    res.setHeader('content-length', Buffer.byteLength(body))
    res.end(body)
  }
  const json = (res, value) => send(res, 'application/json', JSON.stringify(value))
  const failed = (res) => (error) => {
    res.statusCode = 500
    send(res, 'text/plain', String(error?.message ?? error))
  }

  const app = polka()
    .get('/json', (_req, res) => json(res, { message: 'Hello, World!' }))
    .get('/plaintext', (_req, res) => send(res, 'text/plain', 'Hello, World!'))
    .get('/db', (_req, res) => {
      readWorld(randomId()).then((world) => json(res, world), failed(res))
    })
    .get('/queries', (req, res) => {
      const n = queryCount(req.query.queries)
      Promise.all(Array.from({ length: n }, () => readWorld(randomId()))).then(
        (worlds) => json(res, worlds),
        failed(res),
      )
    })
    .get('/fortunes', (_req, res) => {
      pool
        .query('select id, message from fortune')
        .then(({ rows }) => send(res, 'text/html; charset=utf-8', fortunesPage(rows)), failed(res))
    })
    .get('/updates', async (req, res) => {
      try {
        const n = queryCount(req.query.queries)
        const worlds = await Promise.all(Array.from({ length: n }, () => readWorld(randomId())))
        for (const world of worlds) world.randomNumber = randomId()
        const sorted = [...worlds].sort((a, b) => a.id - b.id)
        const values = sorted.map(
          (_, i) => `when $${2 * i + 1}::integer then $${2 * i + 2}::integer`,
        )
        const ids = sorted.map((_, i) => `$${2 * sorted.length + i + 1}::integer`)
        await pool.query(
          `update world set randomnumber = case id ${values.join(' ')} end where id in (${ids.join(', ')})`,
          [...sorted.flatMap((w) => [w.id, w.randomNumber]), ...sorted.map((w) => w.id)],
        )
        json(res, worlds)
      } catch (error) {
        failed(res)(error)
      }
    })
  await new Promise((resolve) => app.listen(port, '127.0.0.1', resolve))
  return {
    port: app.server.address().port,
    close: async () => {
      await new Promise((resolve) => app.server.close(resolve))
      await pool.end()
    },
  }
}

await startWhenMain(import.meta.url, 'polka', startPolka)
