import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { FwError, json, type Middleware } from 'fw'
import { createTestKernel, phasesOf } from 'fw/testing'

const test = suite('middleware')

const tag =
  (name: string, trail: string[]): Middleware =>
  async (_ctx, next) => {
    trail.push(`>${name}`)
    const reply = await next()
    trail.push(`<${name}`)
    return reply
  }

test('runs onion style: group middleware outer-first, then the route own, around the handler', async () => {
  const trail: string[] = []
  const kernel = createTestKernel()
  for (const n of ['outer', 'inner', 'own']) kernel.middleware(n, tag(n, trail))
  kernel.router.group({ prefix: 'a', middleware: ['outer'] }, (r) => {
    r.group({ prefix: 'b', middleware: ['inner'] }, (r2) => {
      r2.get('c', () => {
        trail.push('handler')
        return { ok: true }
      }).middleware('own')
    })
  })
  const res = await kernel.inject('/a/b/c')
  assert.is(res.status, 200)
  assert.equal(trail, ['>outer', '>inner', '>own', 'handler', '<own', '<inner', '<outer'])
  assert.equal(phasesOf(res.events), ['routing', 'action', 'middleware'])
})

test('the middleware phase is the chain less the action: a slow handler counts as action only', async () => {
  const kernel = createTestKernel()
  kernel.middleware('outer', tag('outer', []))
  kernel.router
    .get('slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 60))
      return { ok: true }
    })
    .middleware('outer')
  const res = await kernel.inject('/slow')
  const phase = (name: string): { start: number; duration: number } =>
    res.events.find((e) => e.type === 'phase.completed' && e.data.name === name)!.data as {
      start: number
      duration: number
    }
  const [middleware, action] = [phase('middleware'), phase('action')]
  assert.ok(action.duration >= 50, `action ${action.duration} ms`)
  // Without the action's time taken out, the middleware's would hold it too.
  assert.ok(middleware.duration < action.duration, `middleware ${middleware.duration} ms`)
  assert.ok(middleware.start <= action.start)
})

test('lets middleware answer early without calling next', async () => {
  const kernel = createTestKernel()
  let reached = false
  kernel.middleware('deny', async () => json({ error: 'denied' }, 403))
  kernel.router.get('secret', () => (reached = true)).middleware('deny')
  const res = await kernel.inject('/secret')
  assert.is(res.status, 403)
  assert.is(reached, false)
})

test('drops group middleware named in withoutMiddleware', async () => {
  const trail: string[] = []
  const kernel = createTestKernel()
  kernel.middleware('auth', tag('auth', trail))
  kernel.middleware('log', tag('log', trail))
  kernel.router.group({ middleware: ['auth', 'log'] }, (r) => {
    r.get('open', () => ({})).withoutMiddleware('auth')
  })
  await kernel.inject('/open')
  assert.equal(trail, ['>log', '<log'])
})

test('fails boot when a route names middleware that was never registered', async () => {
  const kernel = createTestKernel()
  kernel.router.get('x', () => ({})).middleware('ghost')
  try {
    await kernel.boot()
    assert.unreachable()
  } catch (error) {
    assert.instance(error, FwError)
    assert.is((error as FwError).code, 'FW_ERR_MIDDLEWARE_UNKNOWN')
    assert.match(
      (error as Error).message,
      "uses middleware 'ghost', which is not registered. Register it with kernel.middleware('ghost', fn)",
    )
  }
})

test('refuses two middleware under one name', () => {
  const kernel = createTestKernel()
  kernel.middleware('m', async (_c, next) => next())
  assert.throws(() => kernel.middleware('m', async (_c, next) => next()), /already registered/)
})

test('answers 500 without details when middleware forgets to return the reply', async () => {
  const kernel = createTestKernel()
  const forgetful = async (_ctx: unknown, next: () => Promise<unknown>): Promise<void> => {
    await next()
  }
  kernel.middleware('forgetful', forgetful as unknown as Middleware)
  kernel.router.get('x', () => ({})).middleware('forgetful')
  const res = await kernel.inject({ url: '/x', headers: { accept: 'application/json' } })
  assert.is(res.status, 500)
  assert.equal(res.json(), { error: 'unavailable' })
  assert.match(
    String((kernel.logger.entries[0]!.context!.error as Error).message),
    "Middleware 'forgetful' did not return a reply",
  )
})

test('names the inner middleware that forgot to return the reply, not the one around it', async () => {
  const kernel = createTestKernel()
  const forgetful = async (_ctx: unknown, next: () => Promise<unknown>): Promise<void> => {
    await next()
  }
  kernel.middleware('outer', tag('outer', []))
  kernel.middleware('forgetful', forgetful as unknown as Middleware)
  kernel.router.get('x', () => ({})).middleware('outer', 'forgetful')
  const res = await kernel.inject({ url: '/x', headers: { accept: 'application/json' } })
  assert.is(res.status, 500)
  assert.match(
    String((kernel.logger.entries[0]!.context!.error as Error).message),
    "Middleware 'forgetful' did not return a reply",
  )
  assert.equal(phasesOf(res.events), ['routing', 'action', 'middleware'])
})

test('lets middleware change the reply on the way out', async () => {
  const kernel = createTestKernel()
  kernel.middleware('powered', async (_ctx, next) => (await next()).header('x-powered-by', 'fw'))
  kernel.router.group({ middleware: ['powered'] }, (r) => r.get('p', () => ({ p: 1 })))
  const res = await kernel.inject('/p')
  assert.is(res.headers['x-powered-by'], 'fw')
})

test.run()
