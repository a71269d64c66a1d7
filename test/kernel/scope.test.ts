import { setImmediate as tick } from 'node:timers/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { currentContext, definePlugin, json, type RequestContext } from 'fw'
import { createTestKernel } from 'fw/testing'

// The request scope: `currentContext()` finds the request in its synchronous part always, and
// after an `await` when a plugin turned the scope on, for every route that can wait.

const test = suite('request scope')

const scoped = definePlugin({
  name: 'scoped',
  setup(kernel) {
    kernel.useRequestScope()
  },
})

/** What `currentContext()` answered, by where it was asked. */
type Seen = Record<string, RequestContext | undefined>

test('a synchronous handler and synchronous taps find their request, without the scope too', async () => {
  const kernel = createTestKernel()
  const seen: Seen = {}
  kernel.router.get('sync', (ctx) => {
    seen.handler = currentContext()
    return { same: currentContext() === ctx }
  })
  kernel.hooks.render.tap('look', (reply) => ((seen.render = currentContext()), reply))
  const res = await kernel.inject('/sync')
  assert.equal(res.json(), { same: true })
  assert.ok(seen.handler !== undefined && seen.handler === seen.render)
  assert.is(currentContext(), undefined, 'nothing is current outside a request')
})

test('with the scope on, an async handler finds its request after every await', async () => {
  const kernel = createTestKernel({ plugins: [[scoped]] })
  kernel.router.get('async', async (ctx) => {
    await tick()
    const afterTick = currentContext() === ctx
    await new Promise((resolve) => setTimeout(resolve, 5))
    return { afterTick, afterTimer: currentContext() === ctx }
  })
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => kernel.inject('/async').then((r) => r.json())),
  )
  for (const answer of answers) assert.equal(answer, { afterTick: true, afterTimer: true })
})

test('a plain function that returns a promise is scoped from its first request on', async () => {
  const kernel = createTestKernel({ plugins: [[scoped]] })
  kernel.router.get('later', (ctx) => tick().then(() => json({ same: currentContext() === ctx })))
  for (let i = 0; i < 3; i++) assert.equal((await kernel.inject('/later')).json(), { same: true })
})

// The first answer that waits turns the scope on for the route before the next request starts,
// not once it settled: a burst on a route's first use finds its requests too.
test('a burst on a plain function that returns a promise finds every request', async () => {
  const kernel = createTestKernel({ plugins: [[scoped]] })
  kernel.router.get('later/{n}', () =>
    tick().then(() => json({ n: currentContext()?.params.n ?? null })),
  )
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => kernel.inject(`/later/${i}`).then((r) => r.json())),
  )
  assert.equal(
    answers,
    Array.from({ length: 20 }, (_, i) => ({ n: String(i) })),
  )
})

test('middleware and bindings make a route scoped whatever its handler', async () => {
  const kernel = createTestKernel({ plugins: [[scoped]] })
  kernel.middleware('wait', async (_ctx, next) => {
    await tick()
    return next()
  })
  kernel.binding('Thing', async (id) => {
    await tick()
    return { id, found: currentContext() !== undefined }
  })
  kernel.router.get('mw', (ctx) => ({ same: currentContext() === ctx })).middleware('wait')
  kernel.router
    .get('things/{thing}', (ctx) => ({ thing: ctx.models.thing, same: currentContext() === ctx }))
    .bind('thing', 'Thing')
  assert.equal((await kernel.inject('/mw')).json(), { same: true })
  assert.equal((await kernel.inject('/things/4')).json(), {
    thing: { id: '4', found: true },
    same: true,
  })
})

test('the kernel’s error lines belong to their request after an async tap', async () => {
  for (const on of [false, true]) {
    const kernel = on ? createTestKernel({ plugins: [[scoped]] }) : createTestKernel()
    const lines: string[] = []
    kernel.useLogger({
      error: (message) => lines.push(`${message} ${currentContext()?.path}`),
      warn() {},
      info() {},
    })
    kernel.router.get('boom', () => {
      throw new Error('on purpose')
    })
    kernel.hooks.error.tapPromise('later', async () => {
      await tick()
      throw new Error('error tap on purpose')
    })
    kernel.hooks.annotate.tapPromise('later', async () => {
      await tick()
      throw new Error('annotate tap on purpose')
    })
    assert.is((await kernel.inject('/boom')).status, 500)
    assert.equal(
      lines,
      ['error hook failed /boom', 'request failed /boom', "annotate tap 'later' failed /boom"],
      `scope ${on ? 'on' : 'off'}`,
    )
  }
})

test('with the scope on, an async render tap finds the request of a synchronous route', async () => {
  const kernel = createTestKernel({ plugins: [[scoped]] })
  const seen: Seen = {}
  kernel.router.get('sync', () => ({ ok: true }))
  kernel.hooks.render.tapPromise('later', async (reply, ctx) => {
    seen.tap = ctx
    await tick()
    seen.render = currentContext()
    return reply
  })
  assert.is((await kernel.inject('/sync')).status, 200)
  assert.ok(
    seen.tap !== undefined && seen.render === seen.tap,
    'the first request runs in the scope',
  )
})

test('concurrent requests each see their own request', async () => {
  const kernel = createTestKernel({ plugins: [[scoped]] })
  kernel.router.get('echo/{n}', async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, Number(ctx.params.n) % 7))
    return { n: currentContext()?.params.n }
  })
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, i) => kernel.inject(`/echo/${i}`).then((r) => r.json())),
  )
  assert.equal(
    results,
    Array.from({ length: 30 }, (_, i) => ({ n: String(i) })),
  )
})

test.run()
