// One secret-bearing object, fed to every place that shows or writes data: a log line (the log
// file), the `_debug` payload of a development request, the dev panel, `/health/phpinfo`, an error
// report (the log file, and the kernel's own stderr logger). No secret value may appear anywhere.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, type Identity, type Kernel, type RequestContext, type UserConfig } from 'fw'
import debug from 'fw/plugins/debug'
import health from 'fw/plugins/health'
import logging from 'fw/plugins/logging'
import { createTestKernel } from 'fw/testing'

const test = suite('redaction everywhere')

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2VjcmV0LXNpZ25hdHVyZS14eXo'

/** Every value is distinctive, so that finding it in an output means it leaked. */
const SECRETS = {
  username: 'ann-visible',
  password: 'pw-leak-0001',
  password_hash: 'ph-leak-0002',
  totp_code: 'totp-leak-0003',
  backup_code: 'backup-leak-0004',
  app_key: 'appkey-leak-0005',
  csrf: 'csrf-leak-0006',
  session: 'session-leak-0007',
  client_id: 'clientid-leak-0008',
  client_secret: 'clientsecret-leak-0009',
  headers: { authorization: 'Bearer auth-leak-0010', accept: 'application/json' },
  forwarded: JWT,
  body: { password: 'nested-leak-0011' },
  ssn: 'ssn-leak-0012',
}
const LEAKS = [
  'pw-leak-0001',
  'ph-leak-0002',
  'totp-leak-0003',
  'backup-leak-0004',
  'appkey-leak-0005',
  'csrf-leak-0006',
  'session-leak-0007',
  'clientid-leak-0008',
  'clientsecret-leak-0009',
  'auth-leak-0010',
  'nested-leak-0011',
  'ssn-leak-0012',
  JWT,
  JWT.split('.')[2]!,
]

function assertNoLeak(where: string, text: string): void {
  for (const secret of LEAKS) assert.not.ok(text.includes(secret), `${where}: ${secret} leaked`)
}

/** A plugin with a secret of its own: `ssn` is masked by every output of its kernel. */
const ssnPlugin = definePlugin({
  name: 'ssn-owner',
  setup(kernel) {
    kernel.redaction.addKeys('ssn')
  },
})

const KEY = 'redact-everywhere-app-key-0123456789abcdef'

function everywhereKernel(): Kernel {
  const kernel = createTestKernel({
    config: {
      app: { name: 'leaky', key: KEY },
      development: true,
      features: ['debug', 'DevPanel'],
      // What /health/phpinfo shows: the same secrets in the configuration.
      integrations: { payments: SECRETS, dsn: 'postgresql://bob:pw-leak-0001@db/x' },
    } as UserConfig,
  })
  kernel.register(ssnPlugin)
  kernel.register(logging, { file: 'var/log/leaky.log' })
  kernel.register(debug)
  kernel.register(health, { diskSpace: false, memoryLimit: false, cache: false, database: false })
  kernel.hooks.authenticate.tapPromise('test-admin', async (ctx): Promise<Identity | undefined> =>
    ctx.header('x-admin') === '1' ? { via: 'test', id: 1, usertype: 100 } : undefined,
  )
  const log = (ctx: RequestContext) => kernel.plugin('logging').logger(ctx)
  kernel.router.post('order', async (ctx) => {
    const body = await ctx.body<Record<string, unknown>>()
    log(ctx).info('order placed', { ...SECRETS, received: body })
    ;(ctx.state as Record<string, unknown>).session = SECRETS
    return { ok: true, id: ctx.state.requestId }
  })
  kernel.router.post('fail', async (ctx) => {
    await ctx.body()
    log(ctx).error('payment refused', SECRETS)
    throw new Error('payment failed', { cause: SECRETS })
  })
  return kernel
}

const query = new URLSearchParams({
  password: 'pw-leak-0001',
  client_id: 'clientid-leak-0008',
  totp_code: 'totp-leak-0003',
}).toString()

test('a log line, the _debug payload, the dev panel, /health/phpinfo and an error report', async () => {
  const kernel = everywhereKernel()
  await kernel.boot()

  const order = await kernel.inject({
    method: 'POST',
    url: `/order?${query}`,
    headers: { accept: 'application/json', authorization: 'Bearer auth-leak-0010' },
    body: SECRETS,
  })
  assert.is(order.status, 200)
  const payload = order.json<{ id: string; _debug: { logs: unknown[]; request: unknown } }>()
  assert.ok(payload._debug.logs.length > 0, 'the log line reached the payload')
  assert.match(JSON.stringify(payload._debug), /ann-visible/)
  assertNoLeak('_debug payload', order.body)

  const failed = await kernel.inject({
    method: 'POST',
    url: `/fail?${query}`,
    headers: { accept: 'application/json' },
    body: SECRETS,
  })
  assert.is(failed.status, 500)
  assert.match(failed.body, /payment failed/)
  assertNoLeak('error response', failed.body)

  // The log file is written asynchronously: wait for the line before asking the panel for it.
  const file = kernel.plugin('logging').file!
  for (
    let i = 0;
    i < 200 && !(existsSync(file) && readFileSync(file, 'utf8').includes('order placed'));
    i++
  )
    await new Promise((r) => setTimeout(r, 10))
  const panel = await kernel.inject({
    url: `/devpanel/logs?request=${payload.id}`,
    headers: { 'x-admin': '1' },
  })
  assert.is(panel.status, 200)
  assert.ok(panel.json<{ count: number }>().count > 0, 'the panel shows the line')
  assert.match(panel.body, /ann-visible/)
  assertNoLeak('dev panel', panel.body)

  const info = await kernel.inject({ url: '/health/phpinfo', headers: { 'x-admin': '1' } })
  assert.is(info.status, 200)
  assert.match(info.body, /integrations\.payments\.username/)
  assert.match(info.body, /ann-visible/)
  assert.match(info.body, /bob:\*\*\*@db/)
  assertNoLeak('/health/phpinfo', info.body)

  await kernel.close()
  const lines = readFileSync(file, 'utf8')
  assert.match(lines, /order placed/)
  assert.match(lines, /payment refused/)
  assert.match(lines, /request failed/)
  assert.match(lines, /ann-visible/)
  assertNoLeak('log file', lines)
})

test("the kernel's own stderr logger masks an error report too", () => {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const script = `
    import { createKernel } from 'fw'
    const kernel = createKernel({ root: process.cwd(), env: {}, config: { app: { name: 'bare' } } })
    kernel.redaction.addKeys('ssn')
    const SECRETS = ${JSON.stringify(SECRETS)}
    kernel.router.get('fail', () => { throw new Error('payment failed', { cause: SECRETS }) })
    kernel.logger.warn('settings', { config: SECRETS })
    const res = await kernel.inject({ url: '/fail', headers: { accept: 'application/json' } })
    process.stdout.write(String(res.status))
  `
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8', env: { ...process.env, FW_DEBUG: '' } },
  )
  assert.is(run.stdout, '500', run.stderr)
  assert.match(run.stderr, /request failed/)
  assert.match(run.stderr, /ann-visible/)
  assertNoLeak('stderr', run.stderr)
})

test.run()
