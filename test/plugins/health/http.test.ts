import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { inject } from 'fw/testing'
import { bootedHealthKernel, closeHealthKernels, fixed, healthKernel } from './fixtures.js'

const test = suite('health http')

test('/health/check answers the full report, 200 when ok', async () => {
  const kernel = await bootedHealthKernel(fixed('a', 'ok', { latency_ms: 3 }))
  const res = await inject(kernel, '/health/check')
  assert.is(res.status, 200)
  const body = res.json() as {
    status: string
    checks: Record<
      string,
      { status: string; name: string; message: string; details: Record<string, unknown> }
    >
  }
  assert.equal(Object.keys(body), ['status', 'checks'])
  assert.is(body.status, 'ok')
  assert.is(body.checks.a!.name, 'a')
  assert.is(body.checks.a!.message, 'a is ok')
  assert.is(body.checks.a!.details.latency_ms, 3)
  assert.is(res.headers['cache-control'], 'no-store')
  assert.is(res.headers['access-control-allow-origin'], '*')
})

for (const status of ['degraded', 'down'] as const) {
  test(`/health/check and /health/status answer 503 when a check is ${status}`, async () => {
    const kernel = await bootedHealthKernel(
      fixed('good', 'ok'),
      fixed('bad', status, { driver: 'x', latency_ms: 1 }),
    )
    const full = await inject(kernel, '/health/check')
    assert.is(full.status, 503)
    assert.is((full.json() as { status: string }).status, status)
    const reduced = await inject(kernel, '/health/status')
    assert.is(reduced.status, 503)
    const body = reduced.json() as Record<string, unknown>
    assert.equal(Object.keys(body).sort(), ['errors', 'service', 'status', 'timestamp'])
    assert.is(body.status, 'unhealthy')
    assert.is(body.service, 'svc')
    assert.equal(body.errors, ['bad'])
    assert.not.match(JSON.stringify(body), /driver|latency|ms/)
  })
}

test('/health/status when healthy has three keys and no errors', async () => {
  const kernel = await bootedHealthKernel(fixed('a', 'ok'))
  const res = await inject(kernel, '/health/status')
  assert.is(res.status, 200)
  const body = res.json() as Record<string, unknown>
  assert.equal(Object.keys(body), ['status', 'timestamp', 'service'])
  assert.is(body.status, 'healthy')
  assert.ok(!Number.isNaN(Date.parse(String(body.timestamp))))
  assert.is(res.headers['cache-control'], 'no-store')
  assert.is(res.headers['access-control-allow-origin'], '*')
})

test('/health/status reads the same run as /health/check and does not probe again', async () => {
  const kernel = await bootedHealthKernel()
  const c = fixed('a', 'ok')
  kernel.plugin('health').register(c)
  await inject(kernel, '/health/check')
  await inject(kernel, '/health/status')
  assert.is(c.calls, 1)
})

test('OPTIONS on the JSON endpoints answers 204 without running a check', async () => {
  const kernel = healthKernel({}, { features: ['authorization-server'], auth: true })
  await kernel.boot()
  kernel.plugin('health').unregister('signing_keys')
  const c = fixed('a', 'ok')
  kernel.plugin('health').register(c)
  for (const url of ['/health/check', '/health/status', '/.well-known/health']) {
    const res = await inject(kernel, { method: 'OPTIONS', url })
    assert.is(res.status, 204, url)
    assert.is(res.headers['access-control-allow-origin'], '*')
    assert.is(res.headers['cache-control'], 'no-store')
  }
  assert.is(c.calls, 0)
  assert.is(kernel.plugin('health').runs, 0)
})

test('Accept: application/health+json answers the IETF draft format: warn is 200, fail 503', async () => {
  const kernel = await bootedHealthKernel()
  const h = kernel.plugin('health')
  h.register(fixed('a', 'ok', { latency_ms: 2 }))
  h.register(fixed('b', 'degraded'))
  const res = await inject(kernel, {
    url: '/health/check',
    headers: { accept: 'application/health+json' },
  })
  // The draft: `warn` is healthy with concerns, answered 2xx–3xx.
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), /^application\/health\+json/)
  const body = res.json() as {
    status: string
    serviceId: string
    checks: Record<
      string,
      { status: string; output: string; observedValue?: number; time?: string }[]
    >
  }
  assert.is(body.status, 'warn')
  assert.is(body.serviceId, 'svc')
  // A check measuring something is keyed `component:measurement`; one that does not, by its name.
  assert.equal(Object.keys(body.checks), ['a:responseTime', 'b'])
  assert.is(body.checks['a:responseTime']![0]!.status, 'pass')
  assert.is(body.checks['a:responseTime']![0]!.observedValue, 2)
  assert.is(body.checks.b![0]!.status, 'warn')
  assert.ok(body.checks.b![0]!.time)
  // fw's own format keeps 503 for `degraded`.
  assert.is((await inject(kernel, '/health/check')).status, 503)
  h.register(fixed('c', 'down'))
  const failed = await inject(kernel, {
    url: '/health/check',
    headers: { accept: 'application/health+json' },
  })
  assert.is(failed.status, 503)
  assert.is((failed.json() as { status: string }).status, 'fail')
})

test('the IETF format of the built-in checks: component:measurement keys, componentType, observed values, output only when not pass', async () => {
  const kernel = healthKernel(
    {
      database: true,
      diskSpace: {},
      memoryLimit: { degradedAt: 0.000001, downAt: 0.99 },
      cache: {},
      // A busy machine (CI runs suites beside each other) must not turn a check into a timeout.
      timeoutMs: 10_000,
    },
    { database: true },
  )
  await kernel.boot()
  // Connected before the check runs: PGlite's in-memory start (~2 s on a busy machine) is not
  // the round trip, and would trip the check's own 2-second timeout.
  await kernel.plugin('database').status()
  kernel.plugin('health').register(fixed('mailer', 'down'))
  const res = await inject(kernel, {
    url: '/health/check',
    headers: { accept: 'application/health+json' },
  })
  type Entry = {
    componentId: string
    componentType: string
    status: string
    output?: string
    observedValue?: number | string
    observedUnit?: string
  }
  const checks = (res.json() as { checks: Record<string, Entry[]> }).checks
  const one = (key: string) => checks[key]![0]!
  assert.equal(
    Object.fromEntries(
      Object.keys(checks)
        .sort()
        .map((k) => [k, [one(k).componentId, one(k).componentType]]),
    ),
    {
      'cache:store': ['cache', 'datastore'],
      'database:responseTime': ['database', 'datastore'],
      'disk:free': ['disk_space', 'system'],
      'memory:utilization': ['memory_limit', 'system'],
      mailer: ['mailer', 'component'],
    },
  )
  // The database answered: pass, its latency observed, and no output.
  assert.is(one('database:responseTime').status, 'pass')
  assert.is(one('database:responseTime').observedUnit, 'ms')
  assert.type(one('database:responseTime').observedValue, 'number')
  assert.not.ok('output' in one('database:responseTime'), JSON.stringify(checks))
  // Disk free and memory used, in bytes.
  assert.is(one('disk:free').observedUnit, 'bytes')
  assert.ok(Number(one('disk:free').observedValue) > 0)
  assert.is(one('memory:utilization').observedUnit, 'bytes')
  assert.ok(Number(one('memory:utilization').observedValue) > 0)
  // The cache observes the store it runs on.
  assert.is(one('cache:store').observedValue, 'memory')
  assert.is(one('cache:store').status, 'pass')
  // Memory is `warn` (a threshold set to trip): its output says why; the failed check's too.
  assert.is(one('memory:utilization').status, 'warn')
  assert.match(String(one('memory:utilization').output), /of/)
  assert.is(one('mailer').status, 'fail')
  assert.is(one('mailer').output, 'mailer is down')
  assert.is(res.status, 503)
})

test('the IETF key of a built-in check stays when it fails before measuring', async () => {
  const kernel = await bootedHealthKernel()
  const h = kernel.plugin('health')
  h.register(fixed('database', 'down'))
  h.register(fixed('cache', 'degraded', { store: 'memory', configured: 'redis', latency_ms: 1 }))
  const res = await inject(kernel, {
    url: '/health/check',
    headers: { accept: 'application/health+json' },
  })
  const checks = (
    res.json() as { checks: Record<string, { status: string; observedValue?: unknown }[]> }
  ).checks
  assert.equal(Object.keys(checks), ['database:responseTime', 'cache:store', 'cache:responseTime'])
  assert.is(checks['database:responseTime']![0]!.status, 'fail')
  assert.not.ok('observedValue' in checks['database:responseTime']![0]!)
  assert.is(checks['cache:store']![0]!.observedValue, 'memory')
  assert.is(checks['cache:responseTime']![0]!.observedValue, 1)
})

test('/.well-known/health exists only with the authorization-server feature', async () => {
  const without = healthKernel()
  assert.is((await inject(without, '/.well-known/health')).status, 404)
})

test('/.well-known/health maps down to error (503) and degraded to ok', async () => {
  const kernel = healthKernel({}, { features: ['authorization-server'], auth: true })
  await kernel.boot()
  const h = kernel.plugin('health')
  assert.ok(h.checks().some((c) => c.name === 'signing_keys'))
  h.unregister('signing_keys')
  h.register(fixed('a', 'ok'))
  h.register(fixed('b', 'degraded'))
  let res = await inject(kernel, '/.well-known/health')
  assert.is(res.status, 200)
  let body = res.json() as Record<string, unknown>
  assert.equal(Object.keys(body), ['status', 'timestamp', 'components'])
  assert.equal(body.components, { a: 'ok', b: 'ok' })
  assert.is(body.status, 'ok')
  h.register(fixed('c', 'down'))
  res = await inject(kernel, '/.well-known/health')
  assert.is(res.status, 503)
  body = res.json() as Record<string, unknown>
  assert.is(body.status, 'error')
  assert.equal(body.components, { a: 'ok', b: 'ok', c: 'error' })
  assert.is(res.headers['access-control-allow-origin'], '*')
})

test('a check that never resolves: /health/check still answers, with the timeout message', async () => {
  const kernel = healthKernel({ timeoutMs: 5000 })
  await kernel.boot()
  kernel
    .plugin('health')
    .register({ name: 'stuck', timeoutMs: 100, run: () => new Promise(() => {}) })
  const res = await inject(kernel, '/health/check')
  // Cut by its own 100 ms timeout, not the registry's 5 s one: the message names which.
  assert.is(res.status, 503)
  const check = (res.json() as { checks: Record<string, { status: string; message: string }> })
    .checks.stuck!
  assert.is(check.status, 'down')
  assert.is(check.message, 'timed out after 100 ms')
})

test('200 concurrent /health/status requests run each check once', async () => {
  const kernel = await bootedHealthKernel()
  const checks = [fixed('a', 'ok'), fixed('b', 'degraded')]
  let slowCalls = 0
  kernel.plugin('health').register({
    name: 'slow',
    async run() {
      slowCalls++
      await new Promise((r) => setTimeout(r, 30))
      return { status: 'ok', name: 'slow', message: '' }
    },
  })
  for (const c of checks) kernel.plugin('health').register(c)
  const responses = await Promise.all(
    Array.from({ length: 200 }, () => inject(kernel, '/health/status')),
  )
  assert.ok(responses.every((r) => r.status === 503))
  assert.is(slowCalls, 1)
  for (const c of checks) assert.is(c.calls, 1)
  assert.is(kernel.plugin('health').runs, 1)
})

test('/health redirects a guest to the sign-in page the auth plugin names', async () => {
  const kernel = healthKernel({}, { auth: true })
  const res = await inject(kernel, '/health')
  assert.is(res.status, 302)
  assert.is(res.headers.location, '/login?return=/health')
})

test('/health refuses a guest with 401 when no plugin offers a sign-in page', async () => {
  for (const kernel of [healthKernel(), healthKernel({}, { database: true })]) {
    const res = await inject(kernel, '/health')
    assert.is(res.status, 401)
    assert.match(res.body, /Sign-in required/)
  }
})

test('/health shows the dashboard to a signed-in user', async () => {
  const kernel = await bootedHealthKernel(
    fixed('disk_space', 'ok'),
    fixed('evil', 'degraded', { note: '<script>' }),
  )
  const res = await inject(kernel, { url: '/health', headers: { 'x-test-user': '7:0' } })
  assert.is(res.status, 503)
  assert.match(String(res.headers['content-type']), /text\/html/)
  assert.match(res.body, /disk_space/)
  assert.match(res.body, /evil is degraded/)
  assert.match(res.body, /&lt;script&gt;/)
  assert.not.match(res.body, /<script>/)
})

test('/health/phpinfo: guests redirected, usertype below 90 refused, 90 shown with secrets masked', async () => {
  const kernel = healthKernel(
    {},
    {
      config: {
        app: { name: 'svc', key: 'super-secret-app-key' },
        database: { url: 'postgresql://bob:hunter2@db/x' },
      },
      auth: true,
    },
  )
  const guest = await inject(kernel, '/health/phpinfo')
  assert.is(guest.status, 302)
  assert.is(guest.headers.location, '/login?return=/health/phpinfo')
  const low = await inject(kernel, { url: '/health/phpinfo', headers: { 'x-test-user': '2:89' } })
  assert.is(low.status, 403)
  const admin = await inject(kernel, { url: '/health/phpinfo', headers: { 'x-test-user': '1:90' } })
  assert.is(admin.status, 200)
  assert.match(admin.body, new RegExp(process.version.replace(/\./g, '\\.')))
  assert.match(admin.body, /heap limit/)
  assert.match(admin.body, /platform/)
  assert.match(admin.body, /app\.key/)
  assert.not.match(admin.body, /super-secret-app-key/)
  assert.not.match(admin.body, /hunter2/)
  assert.match(admin.body, /bob:\*\*\*@db/)
})

test('the health routes are plain routes at the root', async () => {
  const kernel = await bootedHealthKernel()
  assert.is((await inject(kernel, '/health/status')).status, 200)
  assert.is((await inject(kernel, '/admin/health/status')).status, 404)
})

test.after(closeHealthKernels)

test.run()
