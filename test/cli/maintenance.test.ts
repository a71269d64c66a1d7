import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { maintenanceFile } from 'fw'
import { createTestKernel, runCli } from 'fw/testing'
import { runCommands } from '../fixtures/fw-commands.js'
import { startFw } from '../fixtures/fw-process.js'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite('down/up')
let app: TempApp

test.before.each(() => {
  app = createTempApp()
})
test.after.each(() => app.remove())

/** A fresh kernel on the same root (a new kernel reads the flag file at once). */
function request(root: string, accept = 'application/json') {
  const kernel = createTestKernel({ root })
  kernel.router.get('hello', () => ({ hello: 'world' }))
  return kernel.inject({ url: '/hello', headers: { accept } })
}

test('down --retry=60 makes a kernel on that root answer 503 with Retry-After: 60', async () => {
  const { code, stdout } = await runCli(['down', '--retry=60'], { env: app.env })
  assert.is(code, 0)
  assert.match(stdout, '60 s')
  assert.is(readFileSync(join(app.root, 'var', 'MAINTENANCE'), 'utf8').trim(), '60')
  const res = await request(app.root)
  assert.is(res.status, 503)
  assert.is(res.headers['retry-after'], '60')
  assert.equal(res.json(), { error: 'maintenance', retry_after: 60 })
})

test('down without --retry tells clients to retry after 300 seconds', async () => {
  await runCli(['down'], { env: app.env })
  const res = await request(app.root)
  assert.is(res.headers['retry-after'], '300')
  assert.equal(res.json(), { error: 'maintenance', retry_after: 300 })
})

test('down answers browsers with an HTML page, also 503', async () => {
  await runCli(['down'], { env: app.env })
  const res = await request(app.root, 'text/html')
  assert.is(res.status, 503)
  assert.match(String(res.headers['content-type']), 'text/html')
})

test('up brings the app back and says it was down', async () => {
  const [down, up] = await runCommands([['down', '--retry=60'], ['up']], { env: app.env })
  assert.is(down!.code, 0)
  const { code, stdout } = up!
  assert.is(code, 0)
  assert.match(stdout, 'up again')
  assert.not.ok(existsSync(maintenanceFile(app.root)))
  const res = await request(app.root)
  assert.is(res.status, 200)
})

test('up says so when the app was not down', async () => {
  const { code, stdout } = await runCli(['up'], { env: app.env })
  assert.is(code, 0)
  assert.match(stdout, 'was not down')
})

test('down --retry=abc exits 1 with one line naming --retry and no stack', async () => {
  const { code, stdout, stderr } = await runCli(['down', '--retry=abc'], { env: app.env })
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.is(stderr.trim().split('\n').length, 1)
  assert.match(stderr, '--retry')
  assert.not.match(stderr, '    at ')
  assert.not.ok(existsSync(maintenanceFile(app.root)))
})

test('down refuses a retry of 0 or a negative one', async () => {
  const values = ['0', '-5', '1.5']
  const results = await runCommands(
    values.map((value) => ['down', `--retry=${value}`]),
    { env: app.env },
  )
  for (const [i, value] of values.entries()) {
    const { code, stderr } = results[i]!
    assert.is(code, 1, value)
    assert.match(stderr, '--retry', value)
  }
})

test('down and up work when the app cannot boot', async () => {
  const broken = createTempApp({ setup: "  kernel.router.get('x', () => null).middleware('nope')" })
  try {
    const [listed, down] = await runCommands([['route:list'], ['down']], { env: broken.env })
    assert.is(listed!.code, 1)
    assert.is(down!.code, 0)
    assert.ok(existsSync(maintenanceFile(broken.root)))
    assert.is((await runCli(['up'], { env: broken.env })).code, 0)
  } finally {
    broken.remove()
  }
})

test('a running app sees each change of the flag on the very next request', async () => {
  const served = await startFw({ command: 'serve', env: { FORCE_COLOR: '0', ...app.env } })
  try {
    const hello = async () => {
      const res = await fetch(`${served.url}/hello`, { headers: { accept: 'application/json' } })
      return { status: res.status, retry: res.headers.get('retry-after') }
    }
    assert.equal(await hello(), { status: 200, retry: null })
    assert.is((await runCli(['down'], { env: app.env })).code, 0)
    assert.equal(await hello(), { status: 503, retry: '300' }, 'down')
    assert.is((await runCli(['down', '--retry=120'], { env: app.env })).code, 0)
    assert.equal(await hello(), { status: 503, retry: '120' }, 'down --retry=120 over down')
    assert.is((await runCli(['up'], { env: app.env })).code, 0)
    assert.equal(await hello(), { status: 200, retry: null }, 'up')
    assert.is((await runCli(['down', '--retry=60'], { env: app.env })).code, 0)
    assert.equal(await hello(), { status: 503, retry: '60' }, 'down again')
  } finally {
    served.child.kill('SIGKILL')
  }
})

test.run()
