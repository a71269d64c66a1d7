import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { controller, del, get, patch, post, put, route } from '../../../kernel/router/decorators.js'
import { Router } from '../../../kernel/router/router.js'
import { expectRouterError } from './expect-router-error.js'

const test = suite('decorators')

@controller({
  prefix: 'api/products',
  middleware: ['api'],
  permissions: ['catalog'],
  name: 'products.',
})
class Products {
  @get('')
  index(): string {
    return 'index'
  }

  @route({ path: '{id}', methods: ['get', 'head'], name: 'show', middleware: ['cache'] })
  show(): string {
    return 'show'
  }

  @post('')
  store(): void {}

  @put('{id}')
  @patch('{id}')
  update(): void {}

  @del('{id}')
  destroy(): void {}

  helper(): void {}
}

class Plain {
  @get('plain/{slug}', { name: 'plain' })
  show(): void {}
}

class Base {
  @get('base/ping')
  ping(): void {}
}

class Derived extends Base {
  @get('derived/pong')
  pong(): void {}
}

class Nothing {
  run(): void {}
}

test('registers every decorated method of a class with its methods and paths', () => {
  const router = new Router()
  router.controller(Products)
  assert.equal(
    router
      .routes()
      .map((r) => `${r.methods.join('|')} ${r.path}`)
      .sort(),
    [
      'DELETE api/products/{id}',
      'GET api/products',
      'GET|HEAD api/products/{id}',
      'PATCH api/products/{id}',
      'POST api/products',
      'PUT api/products/{id}',
    ],
  )
})

test('uses [Class, methodName] as the handler', () => {
  const router = new Router()
  router.controller(Products)
  assert.equal(router.find('GET', 'api/products/3')?.route.handler, [Products, 'show'])
  assert.equal(router.find('PATCH', 'api/products/3')?.route.handler, [Products, 'update'])
  assert.equal(router.find('PUT', 'api/products/3')?.route.handler, [Products, 'update'])
})

test('applies the @controller prefix, middleware, permissions and name prefix', () => {
  const router = new Router()
  router.controller(Products)
  const show = router.find('GET', 'api/products/3')?.route
  assert.is(show?.name, 'products.show')
  assert.equal(show?.middleware, ['api', 'cache'])
  assert.equal(show?.permissions, ['catalog'])
  assert.is(router.url('products.show', { id: 3 }), '/api/products/3')
})

test('registers a class without @controller with empty defaults', () => {
  const router = new Router()
  router.controller(Plain)
  const route = router.find('GET', 'plain/x')?.route
  assert.equal(route?.handler, [Plain, 'show'])
  assert.is(route?.name, 'plain')
  assert.equal(route?.middleware, [])
})

test('registers inherited decorated methods with the subclass as the handler class', () => {
  const router = new Router()
  router.controller(Derived)
  assert.equal(router.find('GET', 'base/ping')?.route.handler, [Derived, 'ping'])
  assert.equal(router.find('GET', 'derived/pong')?.route.handler, [Derived, 'pong'])
})

test('registers several classes at once, inside an enclosing group', () => {
  const router = new Router()
  router.group({ prefix: 'v2', middleware: ['web'] }, (r) => r.controller(Plain, Base))
  assert.equal(router.find('GET', 'v2/plain/a')?.route.middleware, ['web'])
  assert.ok(router.find('GET', 'v2/base/ping'))
})

test('throws FW_ERR_ROUTER_NO_ROUTES for a class with no decorated method', () => {
  expectRouterError(
    () => new Router().controller(Nothing),
    'FW_ERR_ROUTER_NO_ROUTES',
    'Nothing',
    'router.classic()',
  )
})

test('throws FW_ERR_ROUTER_UNKNOWN_METHOD for an unknown verb in @route', () => {
  class Odd {
    @route({ path: 'odd', methods: ['FETCH'] })
    odd(): void {}
  }
  expectRouterError(() => new Router().controller(Odd), 'FW_ERR_ROUTER_UNKNOWN_METHOD', "'FETCH'")
})

test('refuses a route decorator on a static method', () => {
  expectRouterError(
    () => {
      class Static {
        @get('s')
        static run(): void {}
      }
      return Static
    },
    'FW_ERR_ROUTER_INVALID_DECORATOR',
    'instance methods',
  )
})

test('refuses @route without a path', () => {
  expectRouterError(
    () => route({} as { path: string }),
    'FW_ERR_ROUTER_INVALID_DECORATOR',
    "'path'",
  )
})

test('lets the decorated methods run as plain methods', () => {
  assert.is(new Products().show(), 'show')
})

test.run()
