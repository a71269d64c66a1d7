// The app bench/limits.ts serves: one product read by id (`select … where id = $1` through the
// database plugin's `sql`), under two routes that differ only in the `limit:bench` middleware:
// `/free/:id` and `/limited/:id`. The limiter counts per client address in `limits.store`
// (FW_LIMITS_STORE: `database` by default, or `memory`, `redis`) with points no load reaches, so
// every request is counted and none refused. Plain JavaScript, like bare-app.mjs: the compiled CLI
// loads it without tsx.
import { createKernel } from 'fw'
import database, { defineMigration } from 'fw/plugins/database'
import limits from 'fw/plugins/limits'

const migration = defineMigration({
  name: '20261129000000_bench_items',
  up: [
    'create table bench_items (id integer primary key, name text not null)',
    "insert into bench_items select i, 'item ' || i from generate_series(1, 1000) as i",
  ],
})

/** @type {import('fw').AppFactory} */
export default function createLimitsApp({ env = process.env } = {}) {
  const kernel = createKernel({
    root: '/nonexistent/fw-bench-limits',
    env,
    config: {
      app: { name: 'limits-bench' },
      development: false,
      limits: { store: env.FW_LIMITS_STORE ?? 'database', redis_url: env.REDIS_URL },
    },
  })
  kernel.register(database, { migrations: [migration] })
  kernel.register(limits, { limiters: { bench: { points: 1_000_000_000, duration: 60 } } })
  const item = async (ctx) => {
    const [row] = await kernel.plugin('database').sql`
      select id, name from bench_items where id = ${Number(ctx.params.id)}`
    return row ?? null
  }
  kernel.router.get('free/{id}', item)
  kernel.router.get('limited/{id}', item).middleware('limit:bench')
  return kernel
}
