import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestDatabase, type PrepareResult, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp, { root } from '../../playground/app.js'
import { Application } from '../../playground/entities/application.js'
import { Category } from '../../playground/entities/category.js'
import { Product, PRODUCT_COLUMNS } from '../../playground/entities/product.js'
import { User, verifyPassword } from 'fw/plugins/auth'
import { onPostgres } from '../fixtures/on-postgres.js'

/**
 * sha256 of the JSON of every product's `toData()`, ordered by id. It changes only when the demo
 * data does (generator, PRNG seed, columns): then update it here, on purpose.
 */
const PRODUCTS_CHECKSUM = '4e5cfdcb9e3df5694a9b1f3afdf2c106b79bcedfaffbca8f293f2600b4fdd36f'

interface App {
  db: TestDatabase
  kernel: Kernel
  prepared: PrepareResult
}

async function freshApp(): Promise<App> {
  const db = await createTestDatabase()
  const kernel = createApp({
    env: { DATABASE_URL: db.url, FW_APP_KEY: 'base64:seed-test-key' },
    logger: createMemoryLogger(),
  })
  await kernel.boot()
  return { db, kernel, prepared: await kernel.plugin('database').prepare() }
}

async function productsChecksum(kernel: Kernel): Promise<string> {
  const api = kernel.plugin('database')
  const products = await api.em().find(Product, {}, { orderBy: { id: 'asc' } })
  return createHash('sha256')
    .update(JSON.stringify(products.map((p) => api.toData(p))))
    .digest('hex')
}

const test = suite<{ apps: App[] }>('playground seed', { apps: [] })

test.before(async (context) => {
  context.apps.push(await freshApp())
})

test.after(async ({ apps }) => {
  for (const { kernel, db } of apps) {
    await kernel.close()
    await db.drop()
  }
})

test('uses playground/var/db unless DATABASE_URL names a database', () => {
  // Config is read when the app is built; nothing connects before the first query.
  assert.is(createApp({ env: {} }).config.database.url, `pglite://${join(root, 'var', 'db')}`)
  assert.is(
    createApp({ env: { DATABASE_URL: 'pglite://memory' } }).config.database.url,
    'pglite://memory',
  )
})

test('migrates and seeds a fresh database', ({ apps }) => {
  // Plugins' migrations first (the jobs plugin's queue tables among them), then the app's.
  assert.equal(apps[0]!.prepared, {
    migrated: [
      '20261129000000_jobs_fw_jobs_pg_boss_v24',
      'Migration20261121130000_create_auth_tables',
      'Migration20261121120000_create_playground_tables',
      'Migration20261129120000_create_product_imports',
    ],
    seeded: true,
  })
})

test('writes 4 users, 1 application, 10 categories and 1,000 products', async ({ apps }) => {
  const em = apps[0]!.kernel.plugin('database').em()
  assert.is(await em.count(User), 4)
  assert.is(await em.count(Application), 1)
  assert.is(await em.count(Category), 10)
  assert.is(await em.count(Product), 1000)
})

test('seeds the demo users, alice with her TOTP secret sealed', async ({ apps }) => {
  const users = await apps[0]!.kernel
    .plugin('database')
    .em()
    .find(User, {}, { orderBy: { id: 'asc' } })
  assert.equal(
    users.map((u) => [u.username, u.email, u.usertype, u.totp_secret !== null]),
    [
      ['admin', 'admin@playground.test', 100, false],
      ['editor', 'editor@playground.test', 50, false],
      ['user', 'user@playground.test', 1, false],
      ['alice', 'alice@playground.test', 1, true],
    ],
  )
  // AES-256-GCM under a key derived from the application key, never the secret in clear.
  assert.match(users[3]!.totp_secret!, /^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/)
  assert.not.match(users[3]!.totp_secret!, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')
})

test('stores passwords as scrypt hashes that verify the right password only', async ({ apps }) => {
  const users = await apps[0]!.kernel
    .plugin('database')
    .em()
    .find(User, {}, { orderBy: { id: 'asc' } })
  const hashes = new Set<string>()
  for (const user of users) {
    const password = `${user.username}-pass`
    assert.match(
      user.password_hash,
      /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/=]{86,88}$/,
    )
    assert.not.match(user.password_hash, password)
    assert.ok(await verifyPassword(password, user.password_hash), user.username)
    assert.not.ok(await verifyPassword(`${password}x`, user.password_hash), user.username)
    hashes.add(user.password_hash)
  }
  assert.is(hashes.size, 4)
})

test('stores the API key as its sha256 and the secret as a scrypt hash, never in clear', async ({
  apps,
}) => {
  const em = apps[0]!.kernel.plugin('database').em()
  const app = await em.findOneOrFail(Application, { name: 'playground' })
  assert.is(app.api_key_hash, createHash('sha256').update('demo-api-key').digest('hex'))
  assert.ok(await verifyPassword('demo-api-secret', app.secret_hash))
  const row = JSON.stringify(apps[0]!.kernel.plugin('database').toData(app))
  assert.not.match(row, 'demo-api-key')
  assert.not.match(row, 'demo-api-secret')
  assert.is(app.status, 'active')
  assert.is(app.cors_enabled, false)
})

test('generates varied products: unique skus, ~15 % inactive, NULL notes, every category, 2025 dates', async ({
  apps,
}) => {
  const api = apps[0]!.kernel.plugin('database')
  const products = await api.em().find(Product, {}, { orderBy: { id: 'asc' } })
  assert.equal(Object.keys(api.toData(products[0]!)).sort(), [...PRODUCT_COLUMNS].sort())
  assert.is(new Set(products.map((p) => p.sku)).size, 1000)
  assert.equal(
    products.map((p) => p.id),
    Array.from({ length: 1000 }, (_, i) => i + 1),
  )
  assert.match(products[0]!.name, /^Product 0001 \w+ \w+$/)
  const inactive = products.filter((p) => !p.active).length
  assert.ok(inactive > 100 && inactive < 200, `${inactive} inactive`)
  assert.ok(products.some((p) => p.notes === null) && products.some((p) => p.notes !== null))
  assert.equal(
    [...new Set(products.map((p) => p.category_id))].sort((a, b) => a! - b!),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  )
  for (const p of products) {
    assert.is(typeof p.price, 'number')
    assert.is(Math.round(p.price * 100) / 100, p.price)
    assert.ok(Number.isInteger(p.stock) && p.stock >= 0)
    assert.ok(Array.isArray(p.tags) && p.tags.every((t) => typeof t === 'string'))
    assert.is(p.created_at.getUTCFullYear(), 2025)
  }
})

test('creates alice without an application key, her second factor pending, and seals it on a start with one', async () => {
  // Two starts on one database: a fresh PostgreSQL database, or a PGlite directory.
  const db = onPostgres ? await createTestDatabase() : undefined
  const dir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'fw-seed-'))
  const url = db?.url ?? `pglite://${dir}`
  const start = async (env: NodeJS.ProcessEnv): Promise<Kernel> => {
    const kernel = createApp({ env: { DATABASE_URL: url, ...env }, logger: createMemoryLogger() })
    await kernel.boot()
    await kernel.plugin('database').prepare()
    return kernel
  }
  try {
    // In production: in development the playground signs with the development key.
    const first = await start({ NODE_ENV: 'production' })
    assert.is(await first.plugin('database').em().count(User), 4)
    assert.is((await first.plugin('auth').findUser('alice'))?.totp_secret, 'pending-seal')
    await first.close()
    const second = await start({ FW_APP_KEY: 'base64:seed-test-key' })
    assert.match(String((await second.plugin('auth').findUser('alice'))?.totp_secret), /^v1\./)
    await second.close()
  } finally {
    await db?.drop()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
})

test('seeds nothing on a database that has users', async ({ apps }) => {
  assert.equal(await apps[0]!.kernel.plugin('database').prepare(), { migrated: [], seeded: false })
  assert.is(await apps[0]!.kernel.plugin('database').em().count(Product), 1000)
})

test('writes the same products on every fresh database', async ({ apps }) => {
  apps.push(await freshApp())
  const [first, second] = await Promise.all(apps.map((a) => productsChecksum(a.kernel)))
  assert.is(first, second)
  assert.is(first, PRODUCTS_CHECKSUM)
})

test.run()
