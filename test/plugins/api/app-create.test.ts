import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, runStatement, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger, runCli } from 'fw/testing'
import createApp from '../../../playground/app.js'

// `fw app:create <name>` on the playground, against a database of this suite's own (a PGlite
// directory, or a fresh PostgreSQL database on the PostgreSQL pass).
const test = suite<{ db?: TestDatabase; dir?: string; url: string }>('api app:create', { url: '' })

test.before(async (context) => {
  if (/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')) {
    context.db = await createTestDatabase()
    context.url = context.db.url
  } else {
    context.dir = mkdtempSync(join(tmpdir(), 'fw-app-create-'))
    context.url = `pglite://${context.dir}`
  }
  const migrated = await runCli(['migrate'], { env: { DATABASE_URL: context.url } })
  assert.is(migrated.code, 0, migrated.stderr)
})

test.after(async ({ db, dir }) => {
  await db?.drop()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

test('creates an application, prints key and secret once, stores only hashes; the key works', async ({
  url,
}) => {
  const run = await runCli(['app:create', 'shop'], { env: { DATABASE_URL: url } })
  assert.is(run.code, 0, run.stderr)
  const key = /^API key: (\S+)$/m.exec(run.stdout)?.[1]
  const secret = /^Secret:\s+(\S+)$/m.exec(run.stdout)?.[1]
  assert.ok(key !== undefined && secret !== undefined, run.stdout)
  assert.match(key!, /^fwk_[\w-]{43}$/)
  assert.match(secret!, /^fws_[\w-]{43}$/)

  const kernel = createApp({
    env: { DATABASE_URL: url, FW_CONFIG: '{"features":[]}' },
    logger: createMemoryLogger(),
  })
  await kernel.boot()
  try {
    await kernel.plugin('database').ready()
    const rows = await runStatement(kernel.plugin('database').em(), {
      sql: "select * from applications where name = 'shop'",
      bindings: [],
    })
    assert.is(rows.length, 1)
    const row = rows[0]!
    assert.is(row.api_key_hash, createHash('sha256').update(key!).digest('hex'))
    assert.is(row.status, 'active')
    assert.not.match(JSON.stringify(row), key!)
    assert.not.match(JSON.stringify(row), secret!)
    const res = await kernel.inject({ url: '/api/v1/products/1', headers: { apikey: key! } })
    assert.is(res.status, 200, res.body)
  } finally {
    await kernel.close()
  }
})

test('a duplicate name exits 1 with one line', async ({ url }) => {
  const run = await runCli(['app:create', 'playground'], { env: { DATABASE_URL: url } })
  assert.is(run.code, 1)
  assert.is(run.stdout, '')
  assert.is(run.stderr.trim().split('\n').length, 1, run.stderr)
  assert.match(run.stderr, "An application named 'playground' already exists.")
})

test.run()
