// The list engine on 1,000,000 products (PostgreSQL, a database of its own, dropped afterwards):
// a filtered, sorted, paginated list (`filter` active = true and price >= 100, `order` -price,
// `fields` id,name,sku,price,stock, 20 per page) through the engine in-process (`fetchList`) and
// once through `kernel.inject`, against the same hand-written SQL run with `pg`, same run, requests
// interleaved; the count statement on its own; deep paging (page 10,000) by OFFSET over the
// covering index and by keyset cursor, against page 1. Prints p50s and ratios.
// Run: node --import tsx -C fw-source bench/list.ts   (FW_BENCH_POSTGRES_URL: another server)
// Targets: engine/pg ≤ 1.25 at p50; page 10,000 ≤ 3× page 1.
import { performance } from 'node:perf_hooks'
import * as qs from 'qs-esm'
import pg from 'pg'
import { silentLogger, type Kernel } from 'fw'
import { fetchList } from 'fw/plugins/list'
import createApp from '../playground/app.js'
import { productList } from '../playground/list/products-source.js'
import { generateProducts, listDatabase, PRODUCT_ROWS } from './lib/list-data.js'
import { handWritten, engineCount, engineData, type Page } from './lib/list-queries.js'
import { formatRatio, median } from './lib/stats.js'

const PER_PAGE = 20
const DEEP_PAGE = 10_000
const FILTER = JSON.stringify([
  { field: 'active', op: '=', value: true },
  { field: 'price', op: '>=', value: 100 },
])
/** The request's query string, as a client sends it. */
function queryOf(page: number, after?: string): string {
  const q = new URLSearchParams({
    fields: 'id,name,sku,price,stock',
    order: '-price',
    filter: FILTER,
    page: String(page),
    per_page: String(PER_PAGE),
  })
  if (after !== undefined) q.set('after', after)
  return q.toString()
}
/** …and as the kernel parses it (`ctx.query`). */
const parsed = (query: string): Record<string, unknown> => qs.parse(query)

type Variant = () => Promise<unknown>

/**
 * Runs the variants in turn (the order rotating each round) until `rounds` rounds or `budgetMs`
 * are done, after `warmup` rounds; answers each variant's times in ms.
 */
async function interleave(
  variants: Record<string, Variant>,
  rounds: number,
  budgetMs: number,
  warmup = 5,
): Promise<Record<string, number[]>> {
  const names = Object.keys(variants)
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
  for (let i = 0; i < warmup; i++) for (const n of names) await variants[n]!()
  const stop = performance.now() + budgetMs
  for (let round = 0; round < rounds && performance.now() < stop; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!
      const t = performance.now()
      await variants[name]!()
      times[name]!.push(performance.now() - t)
    }
  }
  return times
}

const ms = (v: number): string => `${v.toFixed(v < 10 ? 2 : 1)} ms`
function report(times: Record<string, number[]>): Record<string, number> {
  const p50: Record<string, number> = {}
  for (const [name, list] of Object.entries(times)) {
    p50[name] = median(list)
    console.log(`  ${name.padEnd(34)} p50 ${ms(p50[name]!).padStart(9)}   (${list.length} runs)`)
  }
  return p50
}

function same(what: string, a: Page, b: Page): void {
  if (JSON.stringify(a) !== JSON.stringify(b))
    throw new Error(
      `${what}: the engine and the hand-written SQL disagree:\n${JSON.stringify(a).slice(0, 300)}\n${JSON.stringify(b).slice(0, 300)}`,
    )
}

async function main(): Promise<void> {
  const started = performance.now()
  const db = await listDatabase()
  let kernel: Kernel | undefined
  const pool = new pg.Pool({ connectionString: db.url, max: 10 })
  try {
    kernel = createApp({
      env: { DATABASE_URL: db.url, NODE_ENV: 'production' },
      logger: silentLogger,
    })
    await kernel.boot()
    await kernel.plugin('database').prepare()
    const generated = await generateProducts(db.url)
    console.log(
      `list: ${PRODUCT_ROWS.toLocaleString('en-US')} products: insert ${ms(generated.insertMs)}, covering index ${ms(generated.indexMs)}, vacuum analyze ${ms(generated.vacuumMs)}`,
    )
    const database = kernel.plugin('database')
    const app = kernel
    const engine = (query: string) => fetchList(database.em(), productList, parsed(query))
    const byHand = handWritten(pool, PER_PAGE)
    const first = queryOf(1)
    const deep = queryOf(DEEP_PAGE)
    const cursor = await byHand.cursorBefore((DEEP_PAGE - 1) * PER_PAGE)
    const keyset = queryOf(DEEP_PAGE, cursor)

    // The engine answers what the hand-written SQL answers (and keyset what OFFSET does).
    const page1 = await engine(first)
    same('page 1', { data: page1.data, total: page1.pagination.totalitems }, await byHand.page(1))
    const pageDeep = await engine(deep)
    same(
      `page ${DEEP_PAGE}`,
      { data: pageDeep.data, total: pageDeep.pagination.totalitems },
      await byHand.page(DEEP_PAGE),
    )
    const viaCursor = await engine(keyset)
    same(
      'keyset',
      { data: viaCursor.data, total: viaCursor.pagination.totalitems },
      await byHand.page(DEEP_PAGE),
    )
    const res = await app.inject({
      url: `/api/v1/products?${first}`,
      headers: { accept: 'application/json', apikey: 'demo-api-key' },
    })
    if (res.status !== 200)
      throw new Error(`GET /api/v1/products answered ${res.status}: ${res.body.slice(0, 300)}`)
    console.log(
      `list: ${page1.pagination.totalitems.toLocaleString('en-US')} rows match; ${PER_PAGE} per page; page ${DEEP_PAGE} starts at row ${((DEEP_PAGE - 1) * PER_PAGE + 1).toLocaleString('en-US')}`,
    )
    console.log(`list: page ${DEEP_PAGE} plan: ${await byHand.plan(DEEP_PAGE)}`)

    console.log('\nA filtered, sorted, paginated request, page 1 (data + count):')
    const a = report(
      await interleave(
        {
          'engine fetchList()': () => engine(first),
          'pg, hand-written SQL': () => byHand.page(1),
        },
        40,
        10_000,
      ),
    )
    console.log('\nThe same through kernel.inject (GET /api/v1/products, production):')
    const b = report(
      await interleave(
        {
          'kernel.inject': () =>
            app.inject({
              url: `/api/v1/products?${first}`,
              headers: { accept: 'application/json', apikey: 'demo-api-key' },
            }),
          'pg, hand-written SQL': () => byHand.page(1),
        },
        25,
        8_000,
      ),
    )
    console.log('\nThe statements on their own (page 1):')
    const c = {
      ...report(
        await interleave(
          {
            'count: engine statement': () => engineCount(database.em(), parsed(first)),
            'count: pg, hand-written': () => byHand.count(),
          },
          30,
          8_000,
        ),
      ),
      ...report(
        await interleave(
          {
            'data: engine (parse, SQL, run, map)': () => engineData(database.em(), parsed(first)),
            'data: pg, hand-written': () => byHand.data(1),
          },
          300,
          5_000,
          50,
        ),
      ),
    }
    console.log(`\nDeep paging, page ${DEEP_PAGE} against page 1 (engine):`)
    const d = report(
      await interleave(
        {
          'page 1 (data + count)': () => engine(first),
          [`page ${DEEP_PAGE}, OFFSET (data + count)`]: () => engine(deep),
          [`page ${DEEP_PAGE}, keyset (data + count)`]: () => engine(keyset),
          'page 1 data only': () => engineData(database.em(), parsed(first)),
          [`page ${DEEP_PAGE} OFFSET data only`]: () => engineData(database.em(), parsed(deep)),
          [`page ${DEEP_PAGE} keyset data only`]: () => engineData(database.em(), parsed(keyset)),
        },
        30,
        15_000,
      ),
    )
    const r = (x: number, y: number): string => formatRatio(x / y)
    console.log(
      `\nlist: engine/pg = ${r(a['engine fetchList()']!, a['pg, hand-written SQL']!)} (target ≤ 1.25); ` +
        `kernel.inject/pg = ${r(b['kernel.inject']!, b['pg, hand-written SQL']!)}; ` +
        `data statement engine/pg = ${r(c['data: engine (parse, SQL, run, map)']!, c['data: pg, hand-written']!)}; ` +
        `count p50 ${ms(c['count: pg, hand-written']!)} (engine's ${ms(c['count: engine statement']!)})`,
    )
    console.log(
      `list: page ${DEEP_PAGE}/page 1 = ${r(d[`page ${DEEP_PAGE}, OFFSET (data + count)`]!, d['page 1 (data + count)']!)} by OFFSET, ` +
        `${r(d[`page ${DEEP_PAGE}, keyset (data + count)`]!, d['page 1 (data + count)']!)} by keyset (target ≤ 3); ` +
        `data only: ${r(d[`page ${DEEP_PAGE} OFFSET data only`]!, d['page 1 data only']!)} by OFFSET, ` +
        `${r(d[`page ${DEEP_PAGE} keyset data only`]!, d['page 1 data only']!)} by keyset`,
    )
  } finally {
    await pool.end()
    await kernel?.close()
    await db.drop()
    console.log(
      `list: ${((performance.now() - started) / 1000).toFixed(1)} s in all, database dropped`,
    )
  }
}

await main()
