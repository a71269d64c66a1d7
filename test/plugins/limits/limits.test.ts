// The limits plugin through `kernel.inject()`: a limiter lets `points` requests of a key through
// in its window and answers the rest 429 with `Retry-After` and the IETF `RateLimit-Policy` /
// `RateLimit` fields; a new window starts afresh; a request without a key is not counted; each
// decision is a `limit.checked` event; declarations with unusable figures fail by code.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { FwError, type Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import limits, { createMemoryStore, type LimiterOptions } from 'fw/plugins/limits'

const test = suite('limits')

/** A clock the test moves by hand. */
const clock = { t: 1_000_000 }

function app(limiters: Record<string, LimiterOptions>): Kernel {
  const kernel = createTestKernel({
    plugins: [[limits, { limiters, store: createMemoryStore(() => clock.t) }]],
  })
  kernel.router.get('limited', () => ({ ok: true })).middleware('limit:api')
  kernel.router.get('per-user', () => ({ ok: true })).middleware('limit:per-user')
  return kernel
}

const limiters: Record<string, LimiterOptions> = {
  api: { points: 3, duration: 60 },
  'per-user': { points: 1, duration: 10, key: (ctx) => ctx.query.user as string | undefined },
}

test('lets points requests through, then answers 429 with Retry-After and RateLimit fields', async () => {
  const kernel = app(limiters)
  await kernel.boot()
  const statuses: number[] = []
  for (let i = 0; i < 3; i++) {
    const res = await kernel.inject('/limited')
    statuses.push(res.status)
    assert.is(res.headers['ratelimit-policy'], '"api";q=3;w=60')
    assert.is(res.headers['ratelimit'], `"api";r=${2 - i};t=60`)
  }
  assert.equal(statuses, [200, 200, 200])
  clock.t += 15_000
  const refused = await kernel.inject({ url: '/limited', headers: { accept: 'application/json' } })
  assert.is(refused.status, 429)
  assert.is(refused.headers['retry-after'], '45')
  assert.is(refused.headers['ratelimit'], '"api";r=0;t=45')
  assert.is(refused.headers['ratelimit-policy'], '"api";q=3;w=60')
  const body = refused.json() as { error: string; retry_after: number }
  assert.is(body.error, 'too_many_requests')
  assert.is(body.retry_after, 45)
})

test('starts a new window once the last one has ended', async () => {
  const kernel = app(limiters)
  await kernel.boot()
  for (let i = 0; i < 4; i++) await kernel.inject('/limited')
  assert.is((await kernel.inject('/limited')).status, 429)
  clock.t += 60_000
  const res = await kernel.inject('/limited')
  assert.is(res.status, 200)
  assert.is(res.headers['ratelimit'], '"api";r=2;t=60')
})

test('counts each key apart and leaves a request without a key uncounted', async () => {
  const kernel = app(limiters)
  await kernel.boot()
  assert.is((await kernel.inject('/per-user?user=ada')).status, 200)
  assert.is((await kernel.inject('/per-user?user=ada')).status, 429)
  assert.is((await kernel.inject('/per-user?user=bob')).status, 200)
  for (let i = 0; i < 3; i++) {
    const res = await kernel.inject('/per-user')
    assert.is(res.status, 200)
    assert.is(res.headers['ratelimit'], undefined)
  }
})

test('records each decision as a limit.checked event, without the counted key', async () => {
  const kernel = app({ api: { points: 1, duration: 5 }, 'per-user': limiters['per-user']! })
  const seen: unknown[] = []
  kernel.hooks.annotate.tapPromise('probe', async (_reply, ctx) => {
    for (const event of ctx.log.ofType('limit.checked')) seen.push(event.data)
  })
  await kernel.boot()
  await kernel.inject('/limited')
  await kernel.inject('/limited')
  const [first, second] = seen as Array<Record<string, unknown>>
  assert.equal(
    { ...first, duration: 0 },
    { limiter: 'api', allowed: true, remaining: 0, reset: 5, store: 'memory', duration: 0 },
  )
  assert.is(second?.allowed, false)
  assert.not.ok(JSON.stringify(seen).includes('127.0.0.1'))
})

test('refuses a limiter with an unusable name or figure, naming it', async () => {
  for (const [name, options] of [
    ['api', { points: 0, duration: 60 }],
    ['api', { points: 10, duration: 0.5 }],
    ['has space', { points: 10, duration: 60 }],
    ['api', { points: 10, duration: 60, cost: -1 }],
  ] as const) {
    const kernel = createTestKernel()
    kernel.register(limits, { store: createMemoryStore() })
    await kernel.boot()
    try {
      kernel.plugin('limits').define(name, options)
      assert.unreachable(`${name} ${JSON.stringify(options)} was accepted`)
    } catch (error) {
      assert.instance(error, FwError)
      assert.is((error as FwError).code, 'FW_ERR_LIMITS_INVALID')
      assert.match((error as Error).message, name)
    }
  }
})

test('names the defined limiters when asked for an unknown one', async () => {
  const kernel = createTestKernel()
  kernel.register(limits, { limiters, store: createMemoryStore() })
  await kernel.boot()
  assert.throws(
    () => kernel.plugin('limits').limiter('nope'),
    /No limiter named "nope"\. Defined: api, per-user/,
  )
})

test.run()
