import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from './temp-app.js'
import { startFw } from '../fixtures/fw-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

// The database a production start finds (plugins/database/database-exists.ts `ensureDatabase`,
// and the plugin's warning at listen): a PostgreSQL database that does not exist is never created
// in production (`fw serve` exits 1 naming it and its server), while outside production it is,
// with a line saying so; the embedded database in production is served with one warning line.
const test = suite<{ app: TempApp }>('the database of a production start')

test.before((context) => {
  context.app = createTempApp({
    preamble: `import database, { defineMigration } from ${JSON.stringify(import.meta.resolve('fw/plugins/database'))}`,
    setup: `
  kernel.register(database, {
    migrations: [defineMigration({ name: '20260101000000_notes', up: ['create table notes (id int)'] })],
  })`,
  })
})

test.after(({ app }) => app.remove())

/** Whether the server `DATABASE_URL` names has a database `name` (dropped when `drop`). */
async function exists(name: string, drop = false): Promise<boolean> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    const { rows } = await client.query('select 1 from pg_database where datname = $1', [name])
    if (drop) await client.query(`drop database if exists "${name}" with (force)`)
    return rows.length > 0
  } finally {
    await client.end()
  }
}

/** The URL of a database `name` on the suite's server, with a password to keep out of errors. */
function urlOf(name: string): string {
  const url = new URL(process.env.DATABASE_URL!)
  url.password = 'sekret-pw'
  url.pathname = `/${name}`
  return url.toString()
}

if (onPostgres) {
  test('in production, fw serve on a database that does not exist exits 1 naming it, and creates nothing', async ({
    app,
  }) => {
    const name = `fw_prod_missing_${process.pid}`
    const env = { ...app.env, NODE_ENV: 'production', DATABASE_URL: urlOf(name) }
    const { code, stdout, stderr } = await runCli(['serve', '--port', '0'], {
      env,
      timeoutMs: 120_000,
    })
    assert.is(code, 1, stdout + stderr)
    assert.not.match(stdout, 'listening on')
    const server = new URL(process.env.DATABASE_URL!)
    assert.is(
      stderr,
      `fw: The database "${name}" does not exist on ${server.hostname}:${server.port || '5432'}, and in production fw does not create one. Check DATABASE_URL, or create the database first (createdb ${name}).\n`,
    )
    assert.not.match(stderr, 'sekret-pw')
    assert.not.ok(await exists(name), 'no database was created')
  })

  test('outside production, a database that does not exist is created, with a line saying so', async ({
    app,
  }) => {
    const name = `fw_dev_missing_${process.pid}`
    try {
      const env = { ...app.env, DATABASE_URL: urlOf(name) }
      const { code, stdout, stderr } = await runCli(['migrate'], { env, timeoutMs: 120_000 })
      assert.is(code, 0, stderr)
      assert.match(stdout + stderr, `database \\"${name}\\" did not exist on `)
      assert.match(stdout, 'migrated 20260101000000_notes')
    } finally {
      assert.ok(await exists(name, true), 'the database was created')
    }
  })
}

test('in production, the embedded database is served with one warning line', async ({ app }) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-prod-embedded-'))
  try {
    const served = await startFw({
      command: 'serve',
      env: { ...app.env, NODE_ENV: 'production', DATABASE_URL: `pglite://${join(dir, 'db')}` },
    })
    assert.is(await served.stop(), 0, served.output())
    const lines = served.output().split('\n')
    const warnings = lines.filter((line) => line.includes('from the embedded database'))
    assert.is(warnings.length, 1, served.output())
    assert.match(warnings[0]!, '"level":"warn"')
    assert.match(warnings[0]!, `in ${join(dir, 'db')}: one process only`)
    assert.match(warnings[0]!, 'Set DATABASE_URL to a PostgreSQL database for a deployment.')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
