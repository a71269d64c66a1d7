import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from '../../cli/temp-app.js'

const test = suite<{ apps: TempApp[] }>('health cli')

/** A temp app with health (no built-ins) and checks forced to the given statuses. */
function app(context: { apps: TempApp[] }, statuses: Record<string, string>): TempApp {
  const created = createTempApp({
    preamble: `import health from ${JSON.stringify(import.meta.resolve('fw/plugins/health'))}`,
    setup: `
  kernel.register(health, { diskSpace: false, memoryLimit: false, cache: false })
  kernel.hooks.boot.tapPromise('app-checks', async () => {
    for (const [name, status] of Object.entries(${JSON.stringify(statuses)})) {
      kernel.plugin('health').register({ name, run: async () => ({ status, name, message: name + ' says ' + status, details: { n: 1 } }) })
    }
  })`,
  })
  context.apps.push(created)
  return created
}

test.before((context) => {
  context.apps = []
})
test.after((context) => {
  for (const a of context.apps) a.remove()
})

test('exit 0 and OK with every check ok, as a table', async (context) => {
  const { code, stdout } = await runCli(['health:check'], {
    env: app(context, { first: 'ok', second: 'ok' }).env,
  })
  assert.is(code, 0)
  const lines = stdout.split('\n')
  assert.is(lines[0], 'Overall status: OK')
  assert.match(stdout, /^Check\s+Status\s+Message\s+Details$/m)
  assert.match(stdout, /^first\s+OK\s+first says ok\s+n=1, duration_ms=/m)
})

test('exit 1 and DEGRADED with a degraded check', async (context) => {
  const { code, stdout } = await runCli(['health:check'], {
    env: app(context, { a: 'ok', b: 'degraded' }).env,
  })
  assert.is(code, 1)
  assert.match(stdout, /^Overall status: DEGRADED$/m)
})

test('exit 2 and DOWN with a down check', async (context) => {
  const { code, stdout } = await runCli(['health:check'], {
    env: app(context, { a: 'degraded', b: 'down' }).env,
  })
  assert.is(code, 2)
  assert.match(stdout, /^Overall status: DOWN$/m)
})

test('--json prints {status, checks}', async (context) => {
  const { code, stdout } = await runCli(['health:check', '--json'], {
    env: app(context, { a: 'ok', b: 'degraded' }).env,
  })
  assert.is(code, 1)
  const report = JSON.parse(stdout) as {
    status: string
    checks: Record<string, { status: string }>
  }
  assert.equal(Object.keys(report), ['status', 'checks'])
  assert.is(report.status, 'degraded')
  assert.is(report.checks.b!.status, 'degraded')
})

test('--only runs the named checks (trimmed); an unknown one is skipped with a warning', async (context) => {
  const env = app(context, { a: 'ok', b: 'down' }).env
  const { code, stdout, stderr } = await runCli(['health:check', '--only= a , nope', '--json'], {
    env,
  })
  assert.is(code, 0)
  assert.equal(Object.keys((JSON.parse(stdout) as { checks: object }).checks), ['a'])
  assert.match(stderr, /unknown check 'nope' skipped/)
})

test('the built-in checks run from the command line', async () => {
  const a = createTempApp({
    preamble: `import health from ${JSON.stringify(import.meta.resolve('fw/plugins/health'))}`,
    setup: `  kernel.register(health)`,
  })
  try {
    const { code, stdout } = await runCli(['health:check', '--json'], { env: a.env })
    const report = JSON.parse(stdout) as { checks: Record<string, unknown> }
    assert.equal(Object.keys(report.checks), ['disk_space', 'memory_limit', 'cache'])
    assert.ok([0, 1, 2].includes(code))
  } finally {
    a.remove()
  }
})

test.run()
