// TechEmpower's six test types as a user of fw writes them: a kernel, routes, the database plugin
// (its documented fast read path, the `sql` tagged template, reached through `forRequest(ctx)` so
// that the request scope can stay off) and the views plugin for fortunes. Nothing here goes around
// fw's request path. `server.mjs` starts it; `bench/techempower.ts` and
// `test/e2e/techempower.test.ts` load it through `createTechEmpowerApp`.
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel, text, view } from 'fw'
import database, { defineMigration, sql } from 'fw/plugins/database'
import views from 'fw/plugins/views'
import { ADDED_FORTUNE, SCHEMA_STATEMENTS } from './schema.mjs'

const here = dirname(fileURLToPath(import.meta.url))

/** 1…10,000, the ids of `world`. */
const randomId = () => 1 + Math.floor(Math.random() * 10_000)

/** `?queries=`: an integer clamped to 1…500; anything else is 1. */
function queryCount(value) {
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : 1
  return n < 1 ? 1 : n > 500 ? 500 : n
}

/**
 * The app. `url` is the database (`DATABASE_URL` by default); `migrate` creates the schema and
 * data through a migration when the app starts listening (PGlite, or an empty PostgreSQL).
 *
 * @param {{ env?: NodeJS.ProcessEnv, url?: string, migrate?: boolean }} [options]
 */
export function createTechEmpowerApp({
  env = process.env,
  url = env.DATABASE_URL,
  migrate = false,
} = {}) {
  const kernel = createKernel({
    root: here,
    env,
    config: { app: { name: 'techempower' }, development: false },
  })
  kernel.register(database, {
    url,
    entities: [],
    migrations: migrate
      ? [defineMigration({ name: '20261126000000_techempower', up: SCHEMA_STATEMENTS })]
      : [],
    prepareOnListen: migrate,
    // Every statement below is reached through `forRequest(ctx)`: no need for the request scope.
    requestScope: false,
  })
  kernel.register(views)
  kernel.hooks.annotate.tap('server', (reply) => {
    reply.header('server', 'fw')
  })
  const db = kernel.plugin.bind(kernel, 'database')
  /** @param {import('fw').RequestContext} ctx @param {number} id */
  const readWorld = async (ctx, id) => {
    const [row] = await db().forRequest(ctx)
      .sql`select id, randomnumber as "randomNumber" from world where id = ${id}`
    return row
  }

  kernel.router.get('json', () => ({ message: 'Hello, World!' }))
  kernel.router.get('plaintext', () => text('Hello, World!'))
  kernel.router.get('db', async (ctx) => readWorld(ctx, randomId()))
  kernel.router.get('queries', async (ctx) => {
    const n = queryCount(ctx.query.queries)
    return Promise.all(Array.from({ length: n }, () => readWorld(ctx, randomId())))
  })
  kernel.router.get('fortunes', async (ctx) => {
    const fortunes = await db().forRequest(ctx).sql`select id, message from fortune`
    fortunes.push({ id: 0, message: ADDED_FORTUNE })
    fortunes.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0))
    return view('fortunes', { fortunes })
  })
  kernel.router.get('updates', async (ctx) => {
    const n = queryCount(ctx.query.queries)
    const worlds = await Promise.all(Array.from({ length: n }, () => readWorld(ctx, randomId())))
    for (const world of worlds) world.randomNumber = randomId()
    // One statement for the writes (allowed), ids in order so that concurrent updates lock alike.
    const sorted = [...worlds].sort((a, b) => a.id - b.id)
    const cases = sql.join(
      sorted.map((w) => sql`when ${w.id}::integer then ${w.randomNumber}::integer`),
      ' ',
    )
    const ids = sql.join(sorted.map((w) => sql`${w.id}::integer`))
    await db()
      .forRequest(ctx)
      .query(sql`update world set randomnumber = case id ${cases} end where id in (${ids})`)
    return worlds
  })
  return kernel
}
