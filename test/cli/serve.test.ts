import { createServer } from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { startFw, type FwProcess } from '../fixtures/fw-process.js'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite('serve')

/** Starts `fw serve` as a child process on an in-memory database unless the test names one (the
 * playground migrates and seeds on listen, and must never touch playground/var/db or the shared
 * PostgreSQL database); resolves once it printed its URL. */
function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<FwProcess> {
  return startFw({
    command: 'serve',
    args,
    env: { FORCE_COLOR: '0', DATABASE_URL: 'pglite://memory', ...env },
  })
}

let app: TempApp
test.before(() => {
  app = createTempApp({
    setup:
      "  kernel.router.get('slow', async () => { await new Promise((r) => setTimeout(r, 400)); return { slow: true } })",
  })
})
test.after(() => app.remove())

test('answers /_demo/ping over a real socket and exits 0 on SIGTERM', async () => {
  // Production: the exact body, without the debug toolbar's `_debug` key.
  const served = await serve(['--port', '0'], { NODE_ENV: 'production' })
  try {
    const res = await fetch(`${served.url}/_demo/ping`)
    assert.is(res.status, 200)
    assert.equal(await res.json(), { hello: 'world', n: 1 })
  } finally {
    served.child.kill('SIGTERM')
  }
  assert.is(await served.exited, 0)
  assert.match(served.output(), 'SIGTERM received')
})

test('finishes an in-flight request before exiting on SIGTERM', async () => {
  const served = await serve(['--port', '0', '--host', '127.0.0.1'], app.env)
  const pending = fetch(`${served.url}/slow`)
  await new Promise((r) => setTimeout(r, 100))
  served.child.kill('SIGTERM')
  const res = await pending
  assert.is(res.status, 200)
  assert.equal(await res.json(), { slow: true })
  assert.is(await served.exited, 0)
})

test('runs several workers on one port with --workers and stops them all on SIGTERM', async () => {
  // A temp app without a database: workers need a database all of them can share.
  const served = await serve(['--port', '0', '--workers', '2'], app.env)
  assert.match(served.output(), '(2 workers)')
  for (let i = 0; i < 4; i++) assert.is((await fetch(`${served.url}/hello`)).status, 200)
  served.child.kill('SIGTERM')
  assert.is(await served.exited, 0)
  assert.match(served.output(), 'stopped')
})

test('stops its workers on SIGTERM even when one exits before its channel closes', async () => {
  // Each worker exits at once on SIGTERM while a helper holds its IPC channel open for a second:
  // the worker's 'exit' comes before its 'disconnect', and node:cluster still lists it then (the
  // order that happens now and then by chance under load).
  const holder = createTempApp({
    preamble: "import cluster from 'node:cluster'\nimport { spawn } from 'node:child_process'",
    setup: `  if (cluster.isWorker) {
    spawn('sleep', ['1'], { stdio: ['ignore', 'ignore', 'ignore', process.channel.fd] }).unref()
    process.once('SIGTERM', () => process.exit(0))
  }`,
  })
  try {
    const served = await serve(['--port', '0', '--workers', '2'], holder.env)
    assert.is((await fetch(`${served.url}/hello`)).status, 200)
    served.child.kill('SIGTERM')
    assert.is(await served.exited, 0, served.output())
    assert.match(served.output(), 'fw: stopped.')
  } finally {
    holder.remove()
  }
})

test('exits 1 with one line when the port is taken', async () => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  const port = (blocker.address() as { port: number }).port
  try {
    const { code, stderr } = await runCli(['serve', '--port', String(port)], {
      env: { DATABASE_URL: 'pglite://memory' },
    })
    assert.is(code, 1)
    assert.is(stderr.trim().split('\n').length, 1)
    assert.match(stderr, `Port ${port}`)
  } finally {
    blocker.close()
  }
})

test('exits 1 naming --port or --workers when they are not numbers', async () => {
  const port = await runCli(['serve', '--port', 'eighty'])
  assert.is(port.code, 1)
  assert.match(port.stderr, '--port')
  const workers = await runCli(['serve', '--workers', '0'])
  assert.is(workers.code, 1)
  assert.match(workers.stderr, '--workers')
})

test('exits 1 naming --drain-timeout when it is not a whole number of seconds', async () => {
  for (const value of ['soon', '-1', '1.5']) {
    const { code, stderr } = await runCli(['serve', '--port', '0', `--drain-timeout=${value}`])
    assert.is(code, 1, value)
    assert.match(stderr, '--drain-timeout must be a whole number')
    assert.not.match(stderr, '    at ')
  }
})

test('exits 1 on --require-database for an app without the database plugin', async () => {
  const app = createTempApp({})
  try {
    const { code, stderr } = await runCli(['serve', '--port', '0', '--require-database'], {
      env: app.env,
    })
    assert.is(code, 1)
    assert.match(stderr, '--require-database needs the database plugin')
  } finally {
    app.remove()
  }
})

test('a plugin declares its own --require-<name> flag: listed in help, checked before listening', async () => {
  const app = createTempApp({
    setup: `  kernel.serveOptions.require('queue', {
    description: 'Exit 1 when the queue cannot be reached',
    check: async () => 'the queue is not reachable (ECONNREFUSED)',
  })`,
  })
  try {
    const help = await runCli(['serve', '--help'], { env: app.env })
    assert.is(help.code, 0)
    assert.match(help.stdout, '--require-queue')
    assert.match(help.stdout, 'Exit 1 when the queue cannot be reached')
    assert.not.match(help.stdout, '--require-database')
    const { code, stdout, stderr } = await runCli(['serve', '--port', '0', '--require-queue'], {
      env: app.env,
    })
    assert.is(code, 1)
    assert.not.match(stdout, 'listening on')
    assert.is(
      stderr,
      'fw: the queue is not reachable (ECONNREFUSED); not serving (--require-queue).\n',
    )
  } finally {
    app.remove()
  }
})

/** A temp app with the database plugin on an in-memory PGlite database. */
function databaseApp(): TempApp {
  return createTempApp({
    preamble: `import database from ${JSON.stringify(import.meta.resolve('fw/plugins/database'))}`,
    setup: `  kernel.register(database, { url: 'pglite://memory', entities: [] })`,
  })
}

test("--require-database is the database plugin's: declared by it, listed in help with it", async () => {
  const app = databaseApp()
  try {
    const help = await runCli(['serve', '--help'], { env: app.env })
    assert.is(help.code, 0)
    assert.match(help.stdout, '--require-database')
    assert.match(help.stdout, 'cannot be migrated and seeded')
  } finally {
    app.remove()
  }
})

test('refuses --workers on an embedded PGlite database, naming DATABASE_URL', async () => {
  const app = databaseApp()
  try {
    const { code, stderr } = await runCli(['serve', '--workers', '2', '--port', '0'], {
      env: app.env,
    })
    assert.is(code, 1)
    assert.match(stderr, '--workers needs a PostgreSQL database')
    assert.match(stderr, 'DATABASE_URL')
    assert.not.match(stderr, '    at ')
  } finally {
    app.remove()
  }
})

test.run()
