import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { runCli as run } from 'fw/testing'
import { createTempApp, type TempApp } from '../../cli/temp-app.js'
import { missingDatabase } from '../../fixtures/cli-database.js'

// `fw health:check` in a process whose database is not open yet: opening it (here made to take
// 2.5 s by the app's migrations loader, longer than the 2 s default timeout) happens before the
// checks run, so the database check times only its round trip.
const test = suite<{ db: TestDatabase; apps: TempApp[] }>('health cli database')

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.apps = []
})
test.after(async (context) => {
  for (const app of context.apps) app.remove()
  await context.db.drop()
})

/** An app with the database (slow to open) and health; `extra` adds checks in a boot tap. */
function app(
  context: { db: TestDatabase; apps: TempApp[] },
  extra = '',
  url = context.db.url,
): NodeJS.ProcessEnv {
  const created = createTempApp({
    preamble: `import health from ${JSON.stringify(import.meta.resolve('fw/plugins/health'))}
import database from ${JSON.stringify(import.meta.resolve('fw/plugins/database'))}`,
    setup: `
  const slowMigrations = () => new Promise((resolve) => setTimeout(() => resolve([]), 2500))
  kernel.register(database, { url: ${JSON.stringify(url)}, migrations: slowMigrations })
  kernel.register(health, { diskSpace: false, memoryLimit: false, cache: false })
  kernel.hooks.boot.tapPromise('app-checks', async () => { ${extra} })`,
  })
  context.apps.push(created)
  return created.env
}

/** The CLI with room for a loaded machine (PGlite's start alone can take seconds there). */
const runCli = (args: readonly string[], options: { env: NodeJS.ProcessEnv }) =>
  run(args, { ...options, timeoutMs: 180_000 })

test('opening the database is not counted against the database check timeout', async (context) => {
  const { code, stdout, stderr } = await runCli(['health:check', '--json'], { env: app(context) })
  const report = JSON.parse(stdout) as {
    checks: Record<string, { status: string; message: string }>
  }
  assert.is(report.checks.database?.status, 'ok', `${stdout}\n${stderr}`)
  assert.is(code, 0)
})

test('a database that does not exist is down, named, and not created', async (context) => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-health-missing-'))
  const postgres = context.db.url.startsWith('postgres')
  const { name, url, assertStillMissing } = missingDatabase(dir)
  try {
    const { code, stdout } = await runCli(['health:check', '--json'], {
      env: app(context, '', url),
    })
    const report = JSON.parse(stdout) as {
      checks: Record<string, { status: string; message: string }>
    }
    assert.is(report.checks.database?.status, 'down')
    const named = postgres ? `"${name}" does not exist` : `${name} does not exist`
    assert.match(report.checks.database!.message, named)
    assert.is(code, 2)
    await assertStillMissing()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('--timeout <seconds> sets every check timeout', async (context) => {
  const env = app(
    context,
    `kernel.plugin('health').register({ name: 'stuck', timeoutMs: 60000, run: () => new Promise(() => {}) })`,
  )
  const args = ['health:check', '--only=stuck', '--timeout', '0.2', '--json']
  const { code, stdout } = await runCli(args, { env })
  const report = JSON.parse(stdout) as {
    checks: Record<string, { status: string; message: string }>
  }
  assert.is(report.checks.stuck?.message, 'timed out after 200 ms')
  assert.is(code, 2)
})

test('--timeout refuses what is not a positive number of seconds', async (context) => {
  const env = app(context)
  for (const value of ['0', 'soon']) {
    const { code, stderr } = await runCli(['health:check', `--timeout=${value}`], { env })
    assert.is(code, 1)
    assert.match(stderr, `--timeout must be a number of seconds above 0, got '${value}'`)
  }
})

test.run()
