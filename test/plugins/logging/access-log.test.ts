import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel, UserConfig } from 'fw'
import { createTestKernel } from 'fw/testing'
import logging from 'fw/plugins/logging'

// The access log (plugins/logging/README.md "The access log"): one line per request, projected from
// its event log after the response; on in development, `logging.access_log` (or FW_ACCESS_LOG)
// elsewhere; the query string masked by the kernel's redaction rule.
const test = suite('logging: access log')

/** A kernel with the logging plugin writing to memory, and a route, a 404 and a failing route. */
function kernelWith(config: UserConfig, env: NodeJS.ProcessEnv = {}) {
  const written: string[] = []
  const kernel = createTestKernel({
    env,
    config: { app: { name: 'shop' }, ...config },
    plugins: [[logging, { destination: { write: (line: string) => void written.push(line) } }]],
  })
  kernel.router.get('items', () => ({ ok: true }))
  kernel.router.get('boom', () => {
    throw new Error('kaboom')
  })
  return { kernel, written }
}

/** Closes the kernel (writing what is pending) and the access lines written. */
async function accessLines(kernel: Kernel, written: string[]): Promise<Record<string, unknown>[]> {
  await kernel.close()
  return written
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => 'status' in line)
}

test('writes one line per request in development, with method, path, status, time and id', async () => {
  const { kernel, written } = kernelWith({ development: true })
  await kernel.inject('/items?page=2')
  await kernel.inject('/nowhere')
  await kernel.inject('/boom')
  const lines = await accessLines(kernel, written)
  assert.equal(
    lines.map((l) => [l.method, l.path, l.status]),
    [
      ['GET', '/items?page=2', 200],
      ['GET', '/nowhere', 404],
      ['GET', '/boom', 500],
    ],
  )
  const [line] = lines
  assert.is(line!.level, 'info')
  assert.match(String(line!.request), /^[0-9a-f]{16}$/)
  assert.type(line!.duration_ms, 'number')
  assert.is(line!.msg, `GET /items?page=2 200 ${String(line!.duration_ms)} ms`)
  assert.is.not(lines[0]!.request, lines[1]!.request)
})

test('masks secret query parameters by the kernel rule, in the path and the message', async () => {
  const { kernel, written } = kernelWith({ development: true })
  kernel.redaction.addKeys('ssn')
  await kernel.inject('/items?access_token=abc123&user[password]=hunter2&ssn=1234&page=1')
  const [line] = await accessLines(kernel, written)
  const masked = '/items?access_token=***&user[password]=***&ssn=***&page=1'
  assert.is(line!.path, masked)
  assert.match(String(line!.msg), masked)
  for (const secret of ['abc123', 'hunter2', '1234']) assert.not.match(written.join(''), secret)
})

test('is off outside development unless logging.access_log or FW_ACCESS_LOG turns it on', async () => {
  const off = kernelWith({})
  await off.kernel.inject('/items')
  assert.equal(await accessLines(off.kernel, off.written), [])

  const config = kernelWith({ logging: { access_log: true } })
  await config.kernel.inject('/items')
  assert.is((await accessLines(config.kernel, config.written)).length, 1)

  const env = kernelWith({}, { FW_ACCESS_LOG: 'true' })
  await env.kernel.inject('/items')
  assert.is((await accessLines(env.kernel, env.written)).length, 1)

  const quiet = kernelWith({ development: true, logging: { access_log: false } })
  await quiet.kernel.inject('/items')
  assert.equal(await accessLines(quiet.kernel, quiet.written), [])
})

test('keeps the id a plugin already gave the request', async () => {
  const { kernel, written } = kernelWith({ development: true })
  kernel.hooks.request.tap('test-request-id', (ctx) => {
    ctx.state.requestId = '0123456789abcdef'
    return undefined
  })
  await kernel.inject('/items')
  const [line] = await accessLines(kernel, written)
  assert.is(line!.request, '0123456789abcdef')
})

test.run()
