import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { json, type FwError } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('binding')
const products = new Map([['5', { id: 5, name: 'Lamp' }]])

function app() {
  const kernel = createTestKernel()
  kernel.binding('Product', async (value) => products.get(value))
  kernel.router
    .get('products/{product}', (ctx) => ({ loaded: ctx.models.product }))
    .bind('product', 'Product')
  return kernel
}

test('loads the model a placeholder is bound to before the handler runs', async () => {
  const res = await app().inject('/products/5')
  assert.equal(res.json(), { loaded: { id: 5, name: 'Lamp' } })
})

test('answers 404 as JSON when the bound model does not exist', async () => {
  const res = await app().inject({ url: '/products/6', headers: { accept: 'application/json' } })
  assert.is(res.status, 404)
  assert.is(res.json<{ error: string }>().error, 'not_found')
})

test('answers 404 as an HTML page to a browser when the bound model does not exist', async () => {
  const res = await app().inject({ url: '/products/6', headers: { accept: 'text/html' } })
  assert.is(res.status, 404)
  assert.match(res.body, '<!doctype html>')
})

test('loads bound models after the middleware, so a caller without credentials learns nothing', async () => {
  const kernel = createTestKernel()
  const lookups: string[] = []
  kernel.binding('Product', async (value) => {
    lookups.push(value)
    return products.get(value)
  })
  kernel.middleware('auth', async (ctx, next) =>
    ctx.header('x-key') === 'k' ? next() : json({ error: 'unauthenticated' }, 401),
  )
  kernel.router
    .get('products/{product}', (ctx) => ({ loaded: ctx.models.product }))
    .bind('product', 'Product')
    .middleware('auth')
  for (const id of ['5', '6']) {
    const res = await kernel.inject({
      url: `/products/${id}`,
      headers: { accept: 'application/json' },
    })
    assert.is(res.status, 401, id)
  }
  assert.equal(lookups, [])
  const ok = await kernel.inject({ url: '/products/5', headers: { 'x-key': 'k' } })
  assert.is(ok.status, 200)
})

test('fails boot when a route binds to a model with no loader', async () => {
  const kernel = createTestKernel()
  kernel.router.get('users/{user}', () => ({})).bind('user', 'User')
  try {
    await kernel.boot()
    assert.unreachable()
  } catch (error) {
    assert.is((error as FwError).code, 'FW_ERR_BINDING_UNKNOWN')
    assert.match((error as Error).message, "kernel.binding('User', loader)")
  }
})

test('resolves a string handler through the controller registry and a group namespace', async () => {
  class Products {
    index() {
      return { from: 'Api.Products.index' }
    }
  }
  const kernel = createTestKernel()
  kernel.controller('Api.Products', Products)
  kernel.router.group({ prefix: 'api', namespace: 'Api' }, (r) =>
    r.get('products', 'Products@index'),
  )
  const res = await kernel.inject('/api/products')
  assert.equal(res.json(), { from: 'Api.Products.index' })
})

test('fails boot naming a string handler whose controller is not registered', async () => {
  const kernel = createTestKernel()
  kernel.router.get('x', 'Missing@index')
  try {
    await kernel.boot()
    assert.unreachable()
  } catch (error) {
    assert.is((error as FwError).code, 'FW_ERR_CONTROLLER_UNKNOWN')
  }
})

test('records a controller phase for class handlers', async () => {
  class Home {
    show() {
      return { ok: true }
    }
  }
  const kernel = createTestKernel()
  kernel.router.get('home', [Home, 'show'])
  const res = await kernel.inject('/home')
  assert.equal(
    res.events
      .filter((e) => e.type === 'phase.completed')
      .map((e) => (e.data as { name: string }).name),
    ['routing', 'controller', 'action'],
  )
})

test.run()
