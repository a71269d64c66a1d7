import { createHash } from 'node:crypto'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { hashPassword } from 'fw/plugins/auth'
import { DEMO_APPLICATION, DEMO_CATEGORIES, demoProducts } from './demo-data.js'
import { Application } from './entities/application.js'
import { Category } from './entities/category.js'
import { Product } from './entities/product.js'

/** Rows per multi-row insert of products: 250 × 10 bound parameters stays far below PostgreSQL's 65,535. */
const PRODUCT_BATCH = 250

/** Lowercase hex SHA-256 of an API key, as `applications.api_key_hash` stores it. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/**
 * Fills an empty database with the demo data (playground/README.md); does nothing (and answers
 * false) when `applications` has a row. (The demo users belong to the auth plugin:
 * `auth/seed-users.ts` creates them through its API, in the auth plugin's seed, right after this
 * one.) The database plugin runs it after the migrations under its advisory lock, so processes
 * starting together on one PostgreSQL seed once. One transaction: a seed that fails half-way leaves
 * the database empty, and the next start tries again.
 *
 * Ids are written explicitly (products 1…1000, categories 1…10) and the sequences moved past
 * them, so the rows are the same even on a database whose sequences an aborted seed advanced.
 */
export async function seed(em: EntityManager): Promise<boolean> {
  if ((await em.count(Application)) > 0) return false
  // scrypt (~50 ms, on libuv's thread pool) runs while the main thread writes the products.
  const secretHash = hashPassword(DEMO_APPLICATION.secret)
  secretHash.catch(() => undefined) // awaited below; a failure must not go unhandled meanwhile
  const products = demoProducts()
  await em.transactional(async (tx) => {
    await tx.insertMany(
      Category,
      DEMO_CATEGORIES.map((title, i) => ({ id: i + 1, title })),
    )
    for (let i = 0; i < products.length; i += PRODUCT_BATCH) {
      await tx.insertMany(Product, products.slice(i, i + PRODUCT_BATCH))
    }
    await tx.insert(Application, {
      name: DEMO_APPLICATION.name,
      api_key_hash: hashApiKey(DEMO_APPLICATION.apiKey),
      secret_hash: await secretHash,
      status: 'active',
      cors_enabled: false,
      origin: null,
      allowed_methods: null,
      allowed_headers: null,
    })
    for (const table of ['categories', 'products']) {
      await tx.execute(
        `select setval(pg_get_serial_sequence('"${table}"', 'id'), (select max("id") from "${table}"))`,
      )
    }
  })
  return true
}
