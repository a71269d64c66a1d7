import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { HealthRegistry, type HealthCheck } from 'fw/plugins/health'
import { fixed } from './fixtures.js'

const test = suite('health registry')

test('the overall status is the worst individual status', async () => {
  const r = new HealthRegistry({ reuseMs: 0 })
  r.register(fixed('a', 'ok'))
  assert.is((await r.run()).status, 'ok')
  r.register(fixed('b', 'degraded'))
  assert.is((await r.run()).status, 'degraded')
  r.register(fixed('c', 'down'))
  assert.is((await r.run()).status, 'down')
})

test('no checks is ok with an empty map', async () => {
  const report = await new HealthRegistry().run()
  assert.equal(report, { status: 'ok', checks: {} })
})

test('registering a name again replaces the earlier check', async () => {
  const r = new HealthRegistry()
  r.register(fixed('disk_space', 'down'))
  r.register(fixed('disk_space', 'ok'))
  assert.is(r.checks().length, 1)
  const report = await r.run()
  assert.is(report.checks.disk_space!.status, 'ok')
})

test('a check that throws or rejects is down with the error message', async () => {
  const r = new HealthRegistry()
  r.register({
    name: 'throws',
    run: () => {
      throw new Error('boom')
    },
  })
  r.register({ name: 'rejects', run: () => Promise.reject(new Error('nope')) })
  r.register({ name: 'garbage', run: () => ({ status: 'fine' }) as never })
  const report = await r.run()
  assert.is(report.status, 'down')
  assert.is(report.checks.throws!.message, 'boom')
  assert.is(report.checks.rejects!.message, 'nope')
  assert.is(report.checks.rejects!.status, 'down')
  assert.is(report.checks.garbage!.status, 'down')
})

test('the result is keyed and named by the registered name, with checked_at in details', async () => {
  const r = new HealthRegistry()
  r.register({
    name: 'mine',
    run: async () => ({ status: 'ok', name: 'other', message: 'hi', details: { x: 1 } }),
  })
  const c = (await r.run()).checks.mine!
  assert.is(c.name, 'mine')
  assert.is(c.details!.x, 1)
  assert.ok(!Number.isNaN(Date.parse(String(c.details!.checked_at))))
  assert.type(c.details!.duration_ms, 'number')
})

test('names must be snake_case', () => {
  const r = new HealthRegistry()
  assert.throws(() => r.register(fixed('Disk-Space', 'ok')), /snake_case/)
  assert.throws(() => r.register({ name: 'x' } as unknown as HealthCheck), /run\(\)/)
})

test('a check that never resolves is down after its own timeout', async () => {
  const r = new HealthRegistry({ timeoutMs: 5000 })
  r.register({ name: 'hangs', timeoutMs: 50, run: () => new Promise(() => {}) })
  r.register(fixed('fine', 'ok'))
  const started = Date.now()
  const report = await r.run()
  // Its own 50 ms, not the registry's 5 s.
  assert.ok(Date.now() - started < 4000)
  assert.is(report.checks.hangs!.status, 'down')
  assert.is(report.checks.hangs!.message, 'timed out after 50 ms')
  assert.is(report.checks.fine!.status, 'ok')
})

test('the registry timeout applies when the check sets none', async () => {
  const r = new HealthRegistry({ timeoutMs: 30 })
  r.register({ name: 'hangs', run: () => new Promise(() => {}) })
  assert.is((await r.run()).checks.hangs!.message, 'timed out after 30 ms')
})

test('checks run in parallel', async () => {
  const r = new HealthRegistry()
  let running = 0
  let most = 0
  for (const name of ['a', 'b', 'c']) {
    r.register({
      name,
      async run() {
        running++
        most = Math.max(most, running)
        await new Promise((res) => setTimeout(res, 20))
        running--
        return { status: 'ok', name, message: '' }
      },
    })
  }
  await r.run()
  assert.is(most, 3)
})

test('concurrent callers share one run in flight', async () => {
  const r = new HealthRegistry({ reuseMs: 0 })
  const c = fixed('a', 'ok')
  r.register(c)
  const reports = await Promise.all(Array.from({ length: 50 }, () => r.run()))
  assert.is(c.calls, 1)
  assert.is(r.runs, 1)
  assert.ok(reports.every((x) => x === reports[0]))
})

test('a report is reused within the window, and probed again after it', async () => {
  let now = 1_000
  const r = new HealthRegistry({ reuseMs: 1000, now: () => now })
  const c = fixed('a', 'ok')
  r.register(c)
  await r.run()
  now += 500
  await r.run()
  assert.is(c.calls, 1)
  now += 600
  await r.run()
  assert.is(c.calls, 2)
  await r.run({ fresh: true })
  assert.is(c.calls, 3)
})

test('registering a check drops the reused report', async () => {
  const r = new HealthRegistry({ reuseMs: 60_000 })
  r.register(fixed('a', 'ok'))
  await r.run()
  r.register(fixed('b', 'down'))
  assert.is((await r.run()).status, 'down')
})

test('only runs the named checks, unknown names ignored', async () => {
  const r = new HealthRegistry()
  r.register(fixed('a', 'ok'))
  r.register(fixed('b', 'down'))
  const report = await r.run({ only: ['a', 'zzz'] })
  assert.equal(Object.keys(report.checks), ['a'])
  assert.is(report.status, 'ok')
})

test.run()
