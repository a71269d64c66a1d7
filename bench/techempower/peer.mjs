// What the peers (fastify.mjs, fastify-pjs.mjs, node-pjs.mjs, polka.mjs) share: the test types'
// rules that no framework changes (ids, `?queries=`, the fortunes page), their start as a script,
// and the Fastify peers' listening and closing.
import { pathToFileURL } from 'node:url'
import { ADDED_FORTUNE } from './schema.mjs'

/** 1…10,000, the ids of `world`. */
export const randomId = () => 1 + Math.floor(Math.random() * 10_000)

/** `?queries=`: an integer clamped to 1…500; anything else is 1. */
export function queryCount(value) {
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : 1
  return n < 1 ? 1 : n > 500 ? 500 : n
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML. */
export const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ESCAPES[c])

/** True when the module at `url` is the script node was started with. */
export const isMain = (url) =>
  process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href

/**
 * The fortunes page of `rows` (the table's `{ id, message }`s): the fortune added at request time
 * joins them, all sorted by message, each message escaped.
 */
export function fortunesPage(rows) {
  const all = [...rows, { id: 0, message: ADDED_FORTUNE }]
  all.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0))
  return `<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>${all
    .map((f) => `<tr><td>${f.id}</td><td>${escapeHtml(f.message)}</td></tr>`)
    .join('')}</table></body></html>`
}

/**
 * Starts a Fastify peer's `app` on `port` of 127.0.0.1: the peer's answer, whose `close` closes the
 * app, then its database client (`end()`: a pg pool, a postgres.js client).
 */
export async function listenFastify(app, port, database) {
  await app.listen({ port, host: '127.0.0.1' })
  return {
    port: app.server.address().port,
    close: async () => {
      await app.close()
      await database.end()
    },
  }
}

/**
 * When the module at `url` is the script node was started with: starts its peer (`start`) on
 * `DATABASE_URL` and `PORT` (8080 by default) and says where it listens.
 */
export async function startWhenMain(url, name, start) {
  if (!isMain(url)) return
  const { port } = await start({
    url: process.env.DATABASE_URL,
    port: Number(process.env.PORT ?? 8080),
  })
  console.log(`${name} techempower listening on http://127.0.0.1:${port}`)
}
