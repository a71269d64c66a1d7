// Readiness (`GET /health/ready`): whether this instance should get traffic. It fails from the
// moment a stop begins (through `http.shutdown_delay`, while the server still answers), and while a
// plugin's condition fails; liveness (`/health/status`) is another question.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect } from 'node:net'
import { performance } from 'node:perf_hooks'
import { enterMaintenance, leaveMaintenance } from 'fw'
import { inject } from 'fw/testing'
import { bootedHealthKernel, closeHealthKernels, fixed, healthKernel } from './fixtures.js'

const test = suite('health ready')
test.after(closeHealthKernels)

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

test('answers 200 ready, then 503 with each failing condition', async () => {
  // A failing check of the registry is liveness, not readiness.
  const kernel = await bootedHealthKernel(fixed('slow_disk', 'down'))
  const ok = await inject(kernel, '/health/ready')
  assert.is(ok.status, 200)
  assert.equal(ok.json(), { status: 'ready' })
  assert.is(ok.headers['cache-control'], 'no-store')
  let queue = false
  kernel.readiness.add('queue', () => (queue ? undefined : 'queue unreachable'))
  kernel.readiness.add('broken', () => {
    throw new Error('boom')
  })
  const down = await inject(kernel, '/health/ready')
  assert.is(down.status, 503)
  assert.equal(down.json(), {
    status: 'unready',
    reasons: ['queue unreachable', 'broken: its readiness check failed'],
  })
  queue = true
  kernel.readiness.add('broken', async () => undefined)
  assert.is((await inject(kernel, '/health/ready')).status, 200)
})

/** One GET on a new connection; the status line and headers, or the socket error's code. */
function get(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' }, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`),
    )
    let out = ''
    socket.on('data', (c: Buffer) => (out += c.toString()))
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
    socket.on('close', () => resolve(out))
    setTimeout(() => socket.destroy(), 2000).unref()
  })
}

test('a stop fails readiness at once, keeps answering through shutdown_delay, then refuses', async () => {
  const kernel = healthKernel({}, { config: { http: { shutdown_delay: 1 } } })
  kernel.router.get('work', () => ({ done: true }))
  const { port } = await kernel.listen(0, '127.0.0.1')
  assert.match(await get(port, '/health/ready'), /^HTTP\/1\.1 200 /)
  const started = performance.now()
  const closed = kernel.close(2000)
  // During the delay: new connections are accepted and answered, each with Connection: close.
  const ready = await get(port, '/health/ready')
  assert.match(ready, /^HTTP\/1\.1 503 /)
  assert.match(ready, '"stopping"')
  assert.match(ready, /connection: close/i)
  await sleep(400)
  const work = await get(port, '/work')
  assert.match(work, /^HTTP\/1\.1 200 /)
  assert.match(work, /connection: close/i)
  await closed
  assert.ok(performance.now() - started >= 950, 'the listener stayed open for the delay')
  assert.is(await get(port, '/work'), 'ECONNREFUSED')
})

test('the probes answer during maintenance; every other path answers 503', async () => {
  const kernel = healthKernel()
  kernel.router.get('work', () => ({ done: true }))
  await kernel.boot()
  enterMaintenance(kernel.root, 60)
  try {
    const ready = await inject(kernel, '/health/ready')
    assert.is(ready.status, 200, 'the instance is fine: it answers the maintenance page itself')
    assert.is((await inject(kernel, '/health/status')).status, 200)
    for (const path of ['/work', '/health/../work', '/health'])
      assert.is((await inject(kernel, path)).status, 503, path)
  } finally {
    leaveMaintenance(kernel.root)
  }
})

test.run()
