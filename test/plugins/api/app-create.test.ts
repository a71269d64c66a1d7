import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import { runStatement } from 'fw/plugins/database'
import { createMemoryLogger, runCli } from 'fw/testing'
import createApp from '../../../playground/app.js'
import { cliDatabase, type CliDatabase } from '../../fixtures/cli-database.js'

// `fw app:create <name>` on the playground, against a database of this suite's own (a PGlite
// directory, or a fresh PostgreSQL database on the PostgreSQL pass).
const test = suite<CliDatabase>('api app:create', { url: '' })
cliDatabase(test, 'fw-app-create-')

test.before(async (context) => {
  const migrated = await runCli(['migrate'], { env: { DATABASE_URL: context.url } })
  assert.is(migrated.code, 0, migrated.stderr)
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
