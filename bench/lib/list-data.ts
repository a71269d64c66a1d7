// bench/list.ts's data: a PostgreSQL database of its own (dropped afterwards, also on Ctrl-C), the
// playground's schema, 1,000,000 products from one `insert … select generate_series` statement,
// and the covering index the list queries need.
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { ownDatabase } from './own-database.js'

export const PRODUCT_ROWS = 1_000_000

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

/** A PostgreSQL database of the benchmark's own, dropped by `drop()` or on exit. */
export const listDatabase = ownDatabase

/** How long each step of the data generation took, in ms. */
export interface Generated {
  insertMs: number
  indexMs: number
  vacuumMs: number
}

/**
 * Replaces the seeded products with 1,000,000 generated ones (one statement), adds the list's
 * covering index, and vacuums (so index-only scans see an all-visible heap).
 *
 * The index serves the benchmark's list, `filter active = true, price >= 100, order -price`:
 * equality on `active`, then `price, id` in order (scanned backward for DESC), with the selected
 * columns included so that neither the count nor an OFFSET walk touches the heap.
 */
export async function generateProducts(url: string): Promise<Generated> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    let t = performance.now()
    await client.query('delete from products')
    await client.query(`insert into products (id, name, sku, price, stock, active, tags, notes, category_id, created_at)
      select n,
        'Product ' || lpad(n::text, 7, '0') || ' ' || (array['Sturdy','Vintage','Eco','Pro','Tiny'])[n % 5 + 1]
          || ' ' || (array['Lamp','Desk','Chair','Kettle','Speaker','Notebook'])[n % 6 + 1],
        'BN-' || lpad(n::text, 7, '0'),
        ((n::bigint * 7919) % 100000) / 100.0,
        n % 500,
        n % 10 <> 0,
        '[]'::jsonb,
        case when n % 7 = 0 then null else 'note ' || n end,
        n % 10 + 1,
        timestamptz '2025-01-01' + n * interval '1 minute'
      from generate_series(1, ${PRODUCT_ROWS}) as n`)
    await client.query(`select setval('products_id_seq', ${PRODUCT_ROWS})`)
    const insertMs = performance.now() - t
    t = performance.now()
    await client.query(
      'create index products_list_active_price on products (active, price, id) include (name, sku, stock)',
    )
    const indexMs = performance.now() - t
    t = performance.now()
    await client.query('vacuum analyze products')
    const vacuumMs = performance.now() - t
    return { insertMs, indexMs, vacuumMs }
  } finally {
    await client.end()
  }
}
