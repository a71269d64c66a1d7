import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { defineErrors, type CodesOf, type Kernel, type RequestContext } from 'fw'
import { createTestKernel, eventsOf, expectEvent, type MemoryLogger } from 'fw/testing'
import logging, { type LoggingOptions } from 'fw/plugins/logging'

const testErrors = defineErrors(
  { owner: 'logging-test', title: 'the logging test' },
  {
    FW_ERR_TEST_BOOM: {
      when: 'The test route throws.',
      fix: 'None: it is the point.',
      message: 'kaboom',
    },
  },
)
declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof testErrors> {}
}

const test = suite('logging')

type TestKernel = Kernel & { logger: MemoryLogger }

/**
 * A kernel named `shop` with the logging plugin and routes that log. A `request` tap stands in for
 * the plugin that issues request ids: it copies the `x-test-id` header into `ctx.state.requestId`.
 */
function kernelWith(options: LoggingOptions = {}): TestKernel {
  const kernel = createTestKernel({
    config: { app: { name: 'shop' } },
    plugins: [[logging, options]],
  })
  kernel.hooks.request.tapPromise('test-request-id', async (ctx) => {
    const id = ctx.header('x-test-id')
    if (id !== undefined) ctx.state.requestId = id
    return undefined
  })
  const log = (ctx: RequestContext) => kernel.plugin('logging').logger(ctx)
  kernel.router.get('hello', (ctx) => {
    log(ctx).info('said hello', { items: 3, user: { id: 7 } })
    return { ok: true }
  })
  kernel.router.post('login', async (ctx) => {
    const body = await ctx.body<Record<string, unknown>>()
    log(ctx).warn('sign-in attempt', {
      body,
      password: body.password,
      headers: ctx.headers,
      user: { name: 'ada', credentials: { password: 'hunter2' }, tokens: ['t-123'] },
    })
    return { ok: true }
  })
  kernel.router.get('levels', (ctx) => {
    log(ctx).info('an info line')
    log(ctx).warn('a warning')
    log(ctx).error('an error')
    return { ok: true }
  })
  kernel.router.get('boom', () => {
    throw testErrors.error('FW_ERR_TEST_BOOM', { cause: new Error('the disk is full') })
  })
  return kernel
}

/** Closes the kernel (which flushes the log) and parses every line of the log file. */
async function linesOf(kernel: Kernel): Promise<Record<string, unknown>[]> {
  const file = kernel.plugin('logging').file!
  await kernel.close()
  return rawLines(file).map((line) => JSON.parse(line) as Record<string, unknown>)
}

function rawLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
}

test('writes one JSON object per line to var/log/<app name>.log', async () => {
  const kernel = kernelWith()
  await kernel.inject('/hello')
  await kernel.inject('/hello')
  const file = join(kernel.root, 'var', 'log', 'shop.log')
  assert.is(kernel.plugin('logging').file, file)
  const lines = await linesOf(kernel)
  assert.is(lines.length, 2)
  const line = lines[0]!
  assert.is(line.level, 'info')
  assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.is(line.msg, 'said hello')
  assert.is(line.app, 'shop')
  assert.is(line.items, 3)
  assert.equal(line.user, { id: 7 })
  assert.ok(!('pid' in line) && !('hostname' in line))
})

test('adds the request id to a line when the request has one', async () => {
  const kernel = kernelWith()
  await kernel.inject({ url: '/hello', headers: { 'x-test-id': '0123456789abcdef' } })
  const [line] = await linesOf(kernel)
  assert.is(line!.request, '0123456789abcdef')
})

test('leaves the request id out when the request has none', async () => {
  const kernel = kernelWith()
  await kernel.inject('/hello')
  const [line] = await linesOf(kernel)
  assert.ok(!('request' in line!))
})

test('records each line as a log.written event in the request log', async () => {
  const kernel = kernelWith()
  const res = await kernel.inject({ url: '/hello', headers: { 'x-test-id': '0123456789abcdef' } })
  assert.equal(expectEvent(res.events, 'log.written'), {
    level: 'info',
    message: 'said hello',
    context: { items: 3, user: { id: 7 } },
  })
  await kernel.close()
})

test('never writes a password, an Authorization header or a cookie', async () => {
  const kernel = kernelWith()
  const res = await kernel.inject({
    method: 'POST',
    url: '/login',
    headers: { authorization: 'Bearer s3cret-bearer', 'x-api-key': 'k-456' },
    cookies: { sid: 'cookie-789' },
    body: { username: 'ada', password: 'hunter2', access_token: 'at-000' },
  })
  assert.is(res.status, 200)
  const file = kernel.plugin('logging').file!
  await kernel.close()
  const text = readFileSync(file, 'utf8')
  for (const secret of ['hunter2', 's3cret-bearer', 'cookie-789', 'k-456', 'at-000', 't-123'])
    assert.not.ok(text.includes(secret), `'${secret}' reached the log file`)
  const line = JSON.parse(rawLines(file)[0]!) as Record<string, Record<string, unknown>>
  assert.is(line.password, '***')
  assert.is(line.headers!.authorization, '***')
  assert.is(line.headers!.cookie, '***')
  assert.equal(line.body, { username: 'ada', password: '***', access_token: '***' })
  assert.equal(line.user, { name: 'ada', credentials: '***', tokens: '***' })
  const event = JSON.stringify(expectEvent(res.events, 'log.written'))
  assert.not.ok(event.includes('hunter2') || event.includes('s3cret-bearer'), 'the event masks too')
})

test('masks the extra redact paths it is given', async () => {
  const kernel = kernelWith({ redact: ['email', '*.email'] })
  await kernel.boot()
  kernel
    .plugin('logging')
    .logger()
    .info('signed up', { email: 'a@b.c', user: { email: 'a@b.c' } })
  const [line] = await linesOf(kernel)
  assert.equal([line!.email, line!.user], ['***', { email: '***' }])
})

test('logs a failing request with its stack while the client only gets {error: unavailable}', async () => {
  const kernel = kernelWith()
  const res = await kernel.inject({
    url: '/boom',
    headers: { accept: 'application/json', 'x-test-id': 'fedcba9876543210' },
  })
  assert.is(res.status, 500)
  assert.equal(res.json(), { error: 'unavailable' })
  assert.is(expectEvent(res.events, 'log.written').message, 'request failed')
  const [line] = await linesOf(kernel)
  assert.is(line!.level, 'error')
  assert.is(line!.msg, 'request failed')
  assert.is(line!.request, 'fedcba9876543210', "the kernel's own lines carry the request id")
  assert.is(line!.path, '/boom')
  const error = line!.error as Record<string, unknown>
  assert.is(error.name, 'FwError')
  assert.is(error.message, 'kaboom')
  assert.is(error.code, 'FW_ERR_TEST_BOOM')
  assert.match(String(error.stack), /^FwError: kaboom\n\s+at /)
  assert.is((error.cause as Record<string, unknown>).message, 'the disk is full')
})

test("writes the kernel's own `request failed` line with its request when the request scope is off", async () => {
  const kernel = kernelWith({ requestScope: false })
  const res = await kernel.inject({ url: '/boom', headers: { 'x-test-id': 'fedcba9876543210' } })
  assert.is(res.status, 500)
  assert.is(expectEvent(res.events, 'log.written').message, 'request failed')
  const [line] = await linesOf(kernel)
  assert.is(line!.msg, 'request failed')
  assert.is(line!.request, 'fedcba9876543210')
})

test('writes only lines at or above the configured level', async () => {
  const kernel = kernelWith({ level: 'warn' })
  const res = await kernel.inject('/levels')
  assert.equal(
    eventsOf(res.events, 'log.written').map((e) => e.data.level),
    ['warn', 'error'],
  )
  const lines = await linesOf(kernel)
  assert.equal(
    lines.map((l) => l.level),
    ['warn', 'error'],
  )
})

test('writes to the file option, relative to the app root', async () => {
  const kernel = kernelWith({ file: 'logs/app.jsonl' })
  await kernel.inject('/hello')
  assert.is(kernel.plugin('logging').file, join(kernel.root, 'logs', 'app.jsonl'))
  assert.is((await linesOf(kernel)).length, 1)
  assert.not.ok(existsSync(join(kernel.root, 'var', 'log', 'shop.log')))
})

test('writes to a given destination stream instead of a file', async () => {
  const written: string[] = []
  const kernel = kernelWith({ destination: { write: (line) => void written.push(line) } })
  await kernel.inject('/hello')
  await kernel.close()
  assert.is(kernel.plugin('logging').file, undefined)
  assert.is(written.length, 1)
  assert.ok(written[0]!.endsWith('\n'))
  assert.is((JSON.parse(written[0]!) as Record<string, unknown>).msg, 'said hello')
})

test('becomes the kernel logger, and hands the previous one back on shutdown', async () => {
  const kernel = kernelWith()
  const memory = kernel.logger
  await kernel.boot()
  assert.is.not(kernel.logger, memory)
  kernel.logger.info('booted', { port: 0 })
  const [line] = await linesOf(kernel)
  assert.is(kernel.logger, memory)
  assert.is(memory.entries.length, 0)
  assert.equal([line!.msg, line!.port, 'request' in line!], ['booted', 0, false])
})

test('writes a context key that the line itself uses under a prefixed name', async () => {
  const kernel = kernelWith()
  await kernel.boot()
  kernel.plugin('logging').logger().info('clash', { level: 9, msg: 'mine', request: 'x' })
  const [line] = await linesOf(kernel)
  assert.is(line!.level, 'info')
  assert.is(line!.msg, 'clash')
  assert.equal([line!._level, line!._msg, line!._request], [9, 'mine', 'x'])
  assert.ok(!('request' in line!))
})

test('writes a cyclic context without failing', async () => {
  const kernel = kernelWith()
  await kernel.boot()
  const node: Record<string, unknown> = { name: 'a' }
  node.self = node
  kernel
    .plugin('logging')
    .logger()
    .info('cycle', { node, twice: [node, node] })
  const [line] = await linesOf(kernel)
  assert.equal(line!.node, { name: 'a', self: '[Circular]' })
  assert.equal(line!.twice, [
    { name: 'a', self: '[Circular]' },
    { name: 'a', self: '[Circular]' },
  ])
})

test.run()
