// The baseline of bench/products.ts: bare polka 1.0.0-next.28 and a `pg.Pool` (10 connections, as
// MikroORM's pool in the playground) answering `GET /api/v1/products/:id` with the row the
// playground's route binding selects, by the same SQL text, as the same JSON (the record itself: every column, price a
// number, created_at ISO 8601), on a free loopback port. DATABASE_URL names the database.
// Started by bench/products.ts and bench/memory.ts as a child process.
import pg from 'pg'
import { jsonApp, send, serve } from './baseline-polka.js'

/**
 * What MikroORM sends for `em.findOne(Product, id)` (the playground's `{product}` binding): it
 * interpolates the parameters itself, so the statement travels as one simple-protocol query with
 * the id inline. The baseline sends the same text (the id is checked to be digits first).
 */
export function productSql(id: number): string {
  return `select "p0".* from "products" as "p0" where "p0"."id" = ${id} limit 1`
}

interface ProductRow {
  id: number
  name: string
  sku: string
  price: string
  stock: number
  active: boolean
  tags: string[]
  notes: string | null
  category_id: number | null
  created_at: Date
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

const app = jsonApp()
app.get('/api/v1/products/:id', async (req, res) => {
  const raw = req.params.id ?? ''
  // As the binding: a key the column cannot hold is no record.
  if (!/^\d{1,15}$/.test(raw)) return send(res, 404, { error: 'not_found' })
  const { rows } = await pool.query<ProductRow>(productSql(Number(raw)))
  const p = rows[0]
  if (p === undefined) return send(res, 404, { error: 'not_found' })
  send(res, 200, {
    id: p.id,
    name: p.name,
    sku: p.sku,
    price: Number(p.price),
    stock: p.stock,
    active: p.active,
    tags: p.tags,
    notes: p.notes,
    category_id: p.category_id,
    created_at: p.created_at.toISOString(),
  })
})
serve(app, pool)
