import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, html, json, text, type AnyEvent, type Identity } from 'fw'
import { createTestKernel, eventsOf, expectEvent, phasesOf } from 'fw/testing'

const test = suite('hooks')

/**
 * A plugin written only against the public API: it derives a response header from the request's
 * event log, as every fw report does (a projection, not a new hook into the pipeline).
 */
const phaseHeader = definePlugin({
  name: 'phase-header',
  setup(kernel) {
    kernel.hooks.annotate.tapPromise('phase-header', async (reply, ctx) => {
      const phases = eventsOf(ctx.log.all() as AnyEvent[], 'phase.completed')
      reply.header(
        'x-phases',
        phases.map((p) => `${p.data.name};dur=${p.data.duration.toFixed(2)}`).join(', '),
      )
      reply.header('x-events', String(ctx.log.size))
    })
  },
})

test('is one frozen object of the documented hooks', () => {
  const kernel = createTestKernel()
  assert.ok(Object.isFrozen(kernel.hooks))
  assert.equal(Object.keys(kernel.hooks).sort(), [
    'annotate',
    'authenticate',
    'boot',
    'error',
    'listen',
    'render',
    'request',
    'route',
    'shutdown',
  ])
})

test('lets a plugin derive a response header from the event log', async () => {
  const kernel = createTestKernel({ plugins: [[phaseHeader]] })
  kernel.router.get('hello', () => ({ hello: 'world' }))
  const res = await kernel.inject('/hello')
  assert.is(res.status, 200)
  assert.match(String(res.headers['x-phases']), /^routing;dur=\d+\.\d\d, action;dur=\d+\.\d\d$/)
  assert.is(res.headers['x-events'], '5')
})

test('records the request, the routing and action phases and the matched route', async () => {
  const kernel = createTestKernel()
  kernel.router.get('things/{id}', (ctx) => ({ id: ctx.params.id })).name('things.show')
  const res = await kernel.inject('/things/7')
  assert.equal(
    res.events.map((e) => e.type),
    [
      'request.received',
      'phase.completed',
      'route.matched',
      'phase.completed',
      'response.prepared',
    ],
  )
  assert.equal(phasesOf(res.events), ['routing', 'action'])
  assert.equal(expectEvent(res.events, 'route.matched'), {
    method: 'GET',
    path: 'things/{id}',
    name: 'things.show',
    handler: 'closure',
    params: { id: '7' },
  })
  for (let i = 1; i < res.events.length; i++) assert.ok(res.events[i]!.at >= res.events[i - 1]!.at)
})

test('runs annotate on errors, redirects, 404s and 204s too', async () => {
  const kernel = createTestKernel({ plugins: [[phaseHeader]] })
  kernel.router.get('boom', () => {
    throw new Error('kaput')
  })
  kernel.router.redirect('old', '/new')
  kernel.router.get('none', () => undefined)
  for (const [url, status] of [
    ['/boom', 500],
    ['/old', 302],
    ['/missing', 404],
    ['/none', 204],
  ] as const) {
    const res = await kernel.inject(url)
    assert.is(res.status, status, url)
    assert.type(res.headers['x-events'], 'string', url)
  }
})

test('answers at once when a request tap returns a reply, skipping routing', async () => {
  const kernel = createTestKernel({ plugins: [[phaseHeader]] })
  let handled = false
  kernel.router.get('x', () => (handled = true))
  kernel.hooks.request.tapPromise('gate', async (ctx) =>
    ctx.header('x-block') ? json({ blocked: true }, 403) : undefined,
  )
  const blocked = await kernel.inject({ url: '/x', headers: { 'x-block': '1' } })
  assert.is(blocked.status, 403)
  assert.is(handled, false)
  assert.is(blocked.headers['x-events'], '2')
  assert.is((await kernel.inject('/x')).status, 200)
})

test('lets render taps transform the reply in stage order', async () => {
  const kernel = createTestKernel()
  kernel.router.get('data', () => ({ a: 1 }))
  kernel.hooks.render.tapPromise({ name: 'second', stage: 10 }, async (reply) => {
    if (reply.isJsonObject())
      return json({ ...(reply.body as { value: object }).value, second: true }, reply.status)
    return reply
  })
  kernel.hooks.render.tapPromise({ name: 'first', stage: -10 }, async (reply) =>
    reply.header('x-first', 'yes'),
  )
  const res = await kernel.inject('/data')
  assert.equal(res.json(), { a: 1, second: true })
})

test('lets an error tap answer with its own envelope', async () => {
  class Teapot extends Error {}
  const kernel = createTestKernel()
  kernel.router.get('tea', () => {
    throw new Teapot('short and stout')
  })
  kernel.hooks.error.tapPromise('teapot', async (error) =>
    error instanceof Teapot ? json({ error: 'teapot' }, 418) : undefined,
  )
  const res = await kernel.inject('/tea')
  assert.is(res.status, 418)
  assert.equal(res.json(), { error: 'teapot' })
  assert.is(expectEvent(res.events, 'exception.raised').message, 'short and stout')
})

test('answers what fails after an asynchronous step with the error reply, annotated', async () => {
  // Each request waits once (a tap or the handler returns a promise), then something fails: the
  // client gets the kernel's 500, the log its exception, and the annotate taps still run.
  const failing = (where: string) => (ctx: { path: string }) =>
    ctx.path === `/${where}` ? Promise.reject(new Error(`${where} failed`)) : Promise.resolve()
  const kernel = createTestKernel()
  kernel.hooks.request.tapPromise('request', (ctx) => failing('request')(ctx).then(() => undefined))
  kernel.hooks.route.tap({ name: 'throws-after-wait', stage: -10 }, (ctx) => {
    if (ctx.path === '/route-after-wait') throw new Error('route-after-wait failed')
    return undefined
  })
  kernel.hooks.route.tapPromise({ name: 'route', stage: -9 }, (ctx) =>
    failing('route')(ctx).then(() => undefined),
  )
  kernel.hooks.render.tapPromise('render', async (reply, ctx) => {
    await failing('render')(ctx)
    return reply
  })
  kernel.hooks.annotate.tap('annotated', (reply) => void reply.header('x-annotated', '1'))
  for (const path of ['request', 'route-after-wait', 'route', 'handler', 'render'])
    kernel.router.get(path, async () => {
      if (path === 'handler') throw new Error('handler failed')
      return { path }
    })
  for (const where of ['request', 'route-after-wait', 'route', 'handler', 'render']) {
    const res = await kernel.inject({ url: `/${where}`, headers: { accept: 'application/json' } })
    assert.is(res.status, 500, where)
    assert.is(res.headers['x-annotated'], '1', where)
    assert.is(expectEvent(res.events, 'exception.raised').message, `${where} failed`)
  }
})

test('isolates an annotate tap that throws: the response and later taps are unharmed', async () => {
  const kernel = createTestKernel()
  kernel.router.get('ok', () => text('fine'))
  kernel.hooks.annotate.tapPromise('broken', async () => {
    throw new Error('tap failed')
  })
  kernel.hooks.annotate.tapPromise('after', async (reply) => void reply.header('x-after', '1'))
  const res = await kernel.inject('/ok')
  assert.is(res.status, 200)
  assert.is(res.body, 'fine')
  assert.is(res.headers['x-after'], '1')
  assert.match(kernel.logger.entries[0]!.message, "annotate tap 'broken' failed")
})

test('runs authenticate lazily, once, only for requests that ask who is there', async () => {
  const kernel = createTestKernel()
  let calls = 0
  kernel.hooks.authenticate.tapPromise('header', async (ctx): Promise<Identity | undefined> => {
    calls++
    const user = ctx.header('x-user')
    return user ? { id: user, via: 'header' } : undefined
  })
  kernel.router.get('public', () => ({ ok: true }))
  kernel.router.get('me', async (ctx) => {
    await ctx.identity()
    return { me: (await ctx.identity())?.id ?? null }
  })
  await kernel.inject('/public')
  assert.is(calls, 0)
  const res = await kernel.inject({ url: '/me', headers: { 'x-user': 'ada' } })
  assert.equal(res.json(), { me: 'ada' })
  assert.is(calls, 1)
})

test('runs boot taps once at boot and shutdown taps at close', async () => {
  const kernel = createTestKernel()
  const seen: string[] = []
  kernel.hooks.boot.tapPromise('routes', async (k) => {
    seen.push('boot')
    k.router.get('late', () => html('<p>declared at boot</p>'))
  })
  kernel.hooks.shutdown.tapPromise('db', async () => void seen.push('shutdown'))
  assert.is((await kernel.inject('/late')).status, 200)
  await kernel.close()
  assert.equal(seen, ['boot', 'shutdown'])
  assert.is(kernel.state, 'closed')
})

test('runs every shutdown tap even when one fails, then reports the failure', async () => {
  const kernel = createTestKernel()
  const closed: string[] = []
  kernel.hooks.shutdown.tapPromise('cache', async () => {
    throw new Error('cache would not close')
  })
  kernel.hooks.shutdown.tapPromise('database', async () => void closed.push('database'))
  await kernel.boot()
  try {
    await kernel.close()
    assert.unreachable()
  } catch (error) {
    assert.is((error as Error).message, 'cache would not close')
  }
  assert.equal(closed, ['database'])
  assert.is(kernel.state, 'closed')
  assert.match(kernel.logger.entries[0]!.message, "shutdown tap 'cache' failed")
})

test('calls annotate taps of every kind: tap, tapAsync and tapPromise', async () => {
  const kernel = createTestKernel()
  kernel.router.get('x', () => ({}))
  kernel.hooks.annotate.tap('sync', (reply) => void reply.header('x-sync', '1'))
  kernel.hooks.annotate.tapAsync('callback', (reply, _ctx, done) => {
    setTimeout(() => {
      reply.header('x-callback', '1')
      done()
    }, 1)
  })
  kernel.hooks.annotate.tapPromise('promise', async (reply) => void reply.header('x-promise', '1'))
  const res = await kernel.inject('/x')
  assert.equal(
    [res.headers['x-sync'], res.headers['x-callback'], res.headers['x-promise']],
    ['1', '1', '1'],
  )
})

test('records in exception.raised the status the client got', async () => {
  const kernel = createTestKernel()
  kernel.router.get('tea', () => {
    throw new Error('teapot')
  })
  kernel.hooks.error.tapPromise('teapot', async () => json({ error: 'teapot' }, 418))
  const res = await kernel.inject('/tea')
  assert.is(expectEvent(res.events, 'exception.raised').status, 418)
})

test('lets a route tap at a negative stage rewrite the routing path, leaving the path alone', async () => {
  const kernel = createTestKernel()
  kernel.router.get('users', (ctx) => ({ path: ctx.path, routed: ctx.routingPath }))
  kernel.hooks.route.tapPromise({ name: 'area', stage: -10 }, async (ctx) => {
    if (ctx.routingPath.startsWith('/admin/'))
      ctx.routingPath = ctx.routingPath.slice('/admin'.length)
    return undefined
  })
  const res = await kernel.inject('/admin/users')
  assert.equal(res.json(), { path: '/admin/users', routed: '/users' })
  assert.is(
    (await kernel.inject({ method: 'POST', url: '/admin/users' })).headers.allow,
    'GET, HEAD',
  )
})

test('runs listen taps once, before the socket accepts, and never for inject', async () => {
  const kernel = createTestKernel()
  const seen: string[] = []
  kernel.hooks.listen.tapPromise('warmup', async () => void seen.push('listen'))
  kernel.router.get('x', () => ({ seen }))
  await kernel.inject('/x')
  assert.equal(seen, [])
  const { url } = await kernel.listen(0, '127.0.0.1')
  try {
    assert.equal(seen, ['listen'])
    assert.equal(await (await fetch(`${url}/x`)).json(), { seen: ['listen'] })
  } finally {
    await kernel.close()
  }
})

test('fails listen() without starting a server when a listen tap rejects', async () => {
  const kernel = createTestKernel()
  kernel.hooks.listen.tapPromise('migrations', async () => {
    throw new Error('migration 3 failed')
  })
  try {
    await kernel.listen(0, '127.0.0.1')
    assert.unreachable()
  } catch (error) {
    assert.is((error as Error).message, 'migration 3 failed')
  }
  await kernel.close()
})

test('request and render taps run in stage order, bail and waterfall, and interceptors still see each call', async () => {
  const kernel = createTestKernel()
  kernel.router.get('x', () => json({ n: 0 }))
  const seen: string[] = []
  kernel.hooks.request.tap({ name: 'late', stage: 10 }, () => {
    seen.push('late')
    return undefined
  })
  kernel.hooks.request.tapPromise({ name: 'early', stage: -10 }, async (ctx) => {
    seen.push('early')
    return ctx.query.stop === '1' ? json({ stopped: true }) : undefined
  })
  kernel.hooks.render.tapPromise({ name: 'plus-one', stage: 0 }, async (reply) => {
    const value = reply.body.kind === 'json' ? (reply.body.value as { n?: number }) : {}
    if (value.n !== undefined) reply.body = { kind: 'json', value: { n: value.n + 1 } }
    return reply
  })
  kernel.hooks.render.tap({ name: 'keep', stage: 10 }, (reply) => reply)
  assert.equal((await kernel.inject('/x')).json(), { n: 1 })
  assert.equal(seen, ['early', 'late'])
  seen.length = 0
  assert.equal((await kernel.inject('/x?stop=1')).json(), { stopped: true })
  assert.equal(seen, ['early'], 'a result ends the request hook')
  const calls: string[] = []
  kernel.hooks.render.intercept({ call: () => void calls.push('render') })
  kernel.hooks.request.intercept({ call: () => void calls.push('request') })
  await kernel.inject('/x')
  assert.equal(calls, ['request', 'render'])
  await kernel.close()
})

test.run()
