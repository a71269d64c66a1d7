import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect } from 'node:net'
import { performance } from 'node:perf_hooks'
import { createKernel, FwError } from 'fw'
import { createTestKernel } from 'fw/testing'
import { RawConnection } from '../e2e/raw-http.js'

// kernel.close() drains keep-alive connections without losing a request: answered with
// `Connection: close` when read before or during the drain, idle sockets closed after a 1 s grace.
const test = suite('drain')
const GRACE_MS = 1_000

function gated() {
  const kernel = createTestKernel()
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  kernel.router.get('slow', async () => {
    await gate
    return { slow: true }
  })
  kernel.router.get('fast', () => ({ fast: true }))
  return { kernel, release }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

test('lets a request in flight at close() finish, answered with Connection: close, then closes its socket', async () => {
  const { kernel, release } = gated()
  const { port } = await kernel.listen(0, '127.0.0.1')
  const conn = await RawConnection.open(port)
  const before = await conn.get('/fast')
  assert.is(before?.headers.connection, 'keep-alive')
  const pending = conn.get('/slow')
  await sleep(50)
  const closing = kernel.close()
  setTimeout(release, 50)
  const res = await pending
  assert.is(res?.status, 200)
  assert.is(res?.body, '{"slow":true}')
  assert.is(res?.headers.connection, 'close')
  await conn.closed
  await closing
  assert.is(kernel.state, 'closed')
  assert.equal(conn.tally(), { sent: 2, answered: 2, unanswered: 0, closedBeforeSent: 0 })
})

test('answers a request arriving on an idle keep-alive socket during the grace, with Connection: close', async () => {
  const { kernel } = gated()
  const { port } = await kernel.listen(0, '127.0.0.1')
  const conn = await RawConnection.open(port)
  assert.is((await conn.get('/fast'))?.headers.connection, 'keep-alive')
  const closing = kernel.close()
  await sleep(GRACE_MS / 2)
  assert.not.ok(conn.isClosed, 'the idle socket is still open within the grace')
  const res = await conn.get('/fast')
  assert.is(res?.status, 200)
  assert.is(res?.headers.connection, 'close')
  await conn.closed
  await closing
  assert.is(conn.tally().unanswered, 0)
})

test('closes a socket that stays idle for the grace, and at once one idle for longer', async () => {
  const { kernel } = gated()
  const { port } = await kernel.listen(0, '127.0.0.1')
  const old = await RawConnection.open(port)
  await old.get('/fast')
  await sleep(GRACE_MS + 100)
  const recent = await RawConnection.open(port)
  await recent.get('/fast')
  const started = performance.now()
  const closing = kernel.close()
  await old.closed
  const oldAfter = performance.now() - started
  await recent.closed
  const recentAfter = performance.now() - started
  await closing
  // Lower bounds and an order only: a loaded machine delays both closes alike.
  assert.ok(recentAfter >= GRACE_MS - 50, `idle since just now: closed after ${recentAfter} ms`)
  assert.ok(
    oldAfter < recentAfter - GRACE_MS / 2,
    `idle for longer than the grace: closed after ${oldAfter} ms, the other after ${recentAfter} ms`,
  )
})

test('answers pipelined requests read before close(): only the last says Connection: close', async () => {
  const { kernel, release } = gated()
  const { port } = await kernel.listen(0, '127.0.0.1')
  const socket = connect({ port, host: '127.0.0.1' })
  let received = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
  const ended = new Promise<void>((r) => socket.on('close', () => r()))
  await new Promise<void>((r) => socket.once('connect', () => r()))
  const req = (path: string): string => `GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`
  socket.write(req('/slow') + req('/slow') + req('/slow'))
  await sleep(100)
  const closing = kernel.close()
  release()
  await ended
  await closing
  const connections = [...received.matchAll(/^connection: (.*)$/gim)].map((m) => m[1]!.trim())
  assert.equal(connections, ['keep-alive', 'keep-alive', 'close'])
  assert.is(received.match(/HTTP\/1\.1 200/g)?.length, 3)
})

test('closes every connection after the drain timeout', async () => {
  const { kernel, release } = gated()
  const { port } = await kernel.listen(0, '127.0.0.1')
  const conn = await RawConnection.open(port)
  void conn.get('/slow')
  await sleep(50)
  const started = performance.now()
  await kernel.close(300)
  const took = performance.now() - started
  await conn.closed
  release()
  // Bounds: the timeout was waited out, and the 30 s default was not (a busy machine's margin).
  assert.ok(took >= 250 && took < 10_000, `close(300) took ${took} ms`)
  assert.is(conn.tally().answered, 0)
})

test('drains for http.drain_timeout seconds when close() is given no timeout', async () => {
  const kernel = createTestKernel({ config: { http: { drain_timeout: 0 } } })
  kernel.router.get('never', () => new Promise<never>(() => undefined))
  const { port } = await kernel.listen(0, '127.0.0.1')
  const conn = await RawConnection.open(port)
  void conn.get('/never')
  await sleep(50)
  const started = performance.now()
  await kernel.close()
  // The request never answers: without the timeout, close() would wait for it forever.
  assert.ok(performance.now() - started < 10_000, 'drain_timeout 0 closes without the request')
  await conn.closed
})

test('defaults http.drain_timeout to 30 seconds', () => {
  assert.is(createKernel({ env: {} }).config.http.drain_timeout, 30)
})

test('refuses an http.drain_timeout that is not a whole number of seconds', () => {
  for (const bad of [-1, 1.5, '30', null]) {
    try {
      createKernel({ env: {}, config: { http: { drain_timeout: bad as number } } })
      assert.unreachable(`accepted ${JSON.stringify(bad)}`)
    } catch (error) {
      assert.instance(error, FwError)
      assert.is((error as FwError).code, 'FW_ERR_CONFIG_INVALID')
      assert.match(
        (error as Error).message,
        `Config key 'http.drain_timeout' must be a whole number of seconds, 0 or more, got ${JSON.stringify(bad)}.`,
      )
    }
  }
})

test.run()
