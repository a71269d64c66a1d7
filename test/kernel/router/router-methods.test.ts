import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Reply } from '../../../kernel/reply.js'
import { Router } from '../../../kernel/router/router.js'
import type { Handler } from '../../../kernel/types.js'
import { expectRouterError } from './expect-router-error.js'

// Methods (HEAD, wrong verb, declarations) and the other declaration helpers.
const test = suite('router methods')

const handlerOf = (router: Router, method: string, path: string, qs?: string): unknown =>
  router.find(method, path, qs)?.route.handler

// HEAD

test('answers HEAD from a GET route with the same placeholders', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show')
  const match = router.find('HEAD', '/products/9')
  assert.is(match?.route.handler, 'Products@show')
  assert.equal(match?.params, { id: '9' })
})

test('prefers an explicitly declared HEAD route to the GET route', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show')
  router.head('products/{id}', 'Products@head')
  assert.is(handlerOf(router, 'HEAD', '/products/9'), 'Products@head')
  assert.is(handlerOf(router, 'GET', '/products/9'), 'Products@show')
})

test('never answers POST, PUT, PATCH or DELETE from a GET route', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show')
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
    assert.is(router.find(method, '/products/9'), undefined, method)
})

// Wrong verb: the methods a path allows (the 405's Allow header), sorted, HEAD wherever GET is.
// One row a case: the routes declared, then each request `[method, path, query]` with the methods
// it is allowed.
interface Allowed {
  readonly name: string
  readonly declare: (router: Router) => void
  readonly asks: readonly [
    method: string,
    path: string,
    qs: string | undefined,
    allowed: string[],
  ][]
}
const ALLOWED: readonly Allowed[] = [
  {
    name: 'lists every method declared for the path',
    declare: (r) => {
      r.get('products/{id}', 'Products@show')
      r.delete('products/{id}', 'Products@destroy')
      r.match(['put', 'patch'], 'products/{id}', 'Products@update')
    },
    asks: [['POST', '/products/5', undefined, ['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']]],
  },
  {
    name: 'returns no methods when the path matches no route',
    declare: (r) => r.get('products/{id}', 'Products@show'),
    asks: [
      ['GET', '/nothing/here', undefined, []],
      ['GET', '/products', undefined, []],
    ],
  },
  {
    name: 'includes the request method among the allowed ones when it matches',
    declare: (r) => r.get('products', 'Products@index'),
    asks: [
      ['head', 'products', undefined, ['GET', 'HEAD']],
      ['GET', 'products', undefined, ['GET', 'HEAD']],
    ],
  },
  {
    name: 'gathers the methods of every route whose pattern matches the path',
    declare: (r) => {
      r.post('users/me', 'Me@update')
      r.get('users/{id}', 'Users@show')
    },
    asks: [
      ['DELETE', 'users/me', undefined, ['GET', 'HEAD', 'POST']],
      ['DELETE', 'users/7', undefined, ['GET', 'HEAD']],
    ],
  },
  {
    name: 'counts a query-string route among the allowed methods only for its query form',
    declare: (r) => r.post('search?type=a', 'Search@typeA'),
    asks: [
      ['GET', 'search', 'type=a', ['POST']],
      ['GET', 'search', undefined, []],
    ],
  },
  {
    name: 'answers nothing for a wrong verb and leaves the 405 to the kernel',
    declare: (r) => r.post('login', 'Auth@login'),
    asks: [['GET', 'login', undefined, ['POST']]],
  },
  {
    name: 'answers nothing for a request method it does not know',
    declare: (r) => r.any('x', 'X@y'),
    asks: [
      ['PROPFIND', 'x', undefined, ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']],
    ],
  },
]

for (const c of ALLOWED)
  test(c.name, () => {
    const router = new Router()
    c.declare(router)
    for (const [method, path, qs, allowed] of c.asks) {
      const asked = `${method} ${path}${qs === undefined ? '' : `?${qs}`}`
      // A request whose method is not among those allowed finds no route: the kernel answers 405.
      if (!allowed.includes(method.toUpperCase()))
        assert.is(router.find(method, path, qs), undefined, asked)
      assert.equal(router.allowedMethodsFor(method, path, qs), allowed, asked)
    }
  })

// Methods in declarations and requests

test('throws FW_ERR_ROUTER_UNKNOWN_METHOD naming the verb and listing the valid ones', () => {
  const router = new Router()
  expectRouterError(
    () => router.match(['GET', 'FETCH'], 'x', 'X@y'),
    'FW_ERR_ROUTER_UNKNOWN_METHOD',
    "'FETCH'",
    'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
  )
  expectRouterError(() => router.match([], 'x', 'X@y'), 'FW_ERR_ROUTER_UNKNOWN_METHOD')
})

test('accepts methods in any case in declarations', () => {
  const router = new Router()
  router.match(['get', 'Post'], 'x', 'X@y')
  assert.equal(router.routes()[0]?.methods, ['GET', 'POST'])
})

test('declares every HTTP method with any()', () => {
  const router = new Router()
  router.any('hook', 'Hook@run')
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
    assert.ok(router.find(method, 'hook'), method)
})

test('declares each verb with its own shorthand', () => {
  const router = new Router()
  const verbs = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const
  for (const verb of verbs) router[verb]('r', verb)
  for (const verb of verbs) assert.is(handlerOf(router, verb.toUpperCase(), 'r'), verb)
})

test('matches a request method written in lower case', () => {
  const router = new Router()
  router.get('x', 'X@y')
  assert.ok(router.find('get', 'x'))
  assert.ok(router.find('Get', 'x'))
})

// Other declarations

test('answers every method of redirect() with a 302 to the target', () => {
  const router = new Router()
  router.redirect('old', '/new')
  const handler = router.find('POST', 'old')?.route.handler as Handler
  const reply = handler(undefined as never) as Reply
  assert.instance(reply, Reply)
  assert.is(reply.status, 302)
  assert.is(reply.getHeader('location'), '/new')
})

test('answers redirectPermanent() with a 301', () => {
  const router = new Router()
  router.redirectPermanent('old', '/new')
  const reply = (router.find('GET', 'old')?.route.handler as Handler)(undefined as never) as Reply
  assert.is(reply.status, 301)
  assert.is(reply.getHeader('location'), '/new')
})

test('renders a template with its data from view() for GET and HEAD', () => {
  const router = new Router()
  router.view('about', 'pages/about', { title: 'About' })
  const reply = (router.find('HEAD', 'about')?.route.handler as Handler)(
    undefined as never,
  ) as Reply
  assert.equal(reply.body, { kind: 'view', template: 'pages/about', data: { title: 'About' } })
  assert.is(router.find('POST', 'about'), undefined)
})

test('keeps the fallback route out of matching and exposes it', () => {
  const router = new Router()
  assert.is(router.fallbackRoute, undefined)
  router.group({ middleware: ['web'] }, (r) => r.fallback('Errors@notFound'))
  assert.is(router.find('GET', 'anything'), undefined)
  assert.is(router.fallbackRoute?.handler, 'Errors@notFound')
  assert.equal(router.fallbackRoute?.middleware, ['web'])
})

test('lists every declared route in declaration order', () => {
  const router = new Router()
  router.get('b', 'B@x')
  router.post('a', 'A@x')
  router.resource('photos', 'Photos').only('index')
  assert.equal(
    router.routes().map((r) => `${r.methods.join('|')} ${r.path}`),
    ['GET b', 'POST a', 'GET photos'],
  )
})

test('compiles again when a route is declared after a lookup', () => {
  const router = new Router()
  router.get('a', 'A@x')
  assert.is(router.find('GET', 'b'), undefined)
  const builder = router.get('b', 'B@x')
  assert.ok(router.find('GET', 'b'))
  builder.name('b')
  assert.is(router.url('b'), '/b')
})

test('records the model bound to a placeholder by bind()', () => {
  const router = new Router()
  router.get('users/{user}', 'Users@show').bind('user', 'User')
  assert.equal(router.find('GET', 'users/3')?.route.bindings, { user: 'User' })
})

test('refuses where() or bind() on a placeholder the path lacks', () => {
  const router = new Router()
  router.get('users/{user}', 'Users@show').bind('id', 'User')
  expectRouterError(() => router.compile(), 'FW_ERR_ROUTER_UNKNOWN_PARAM', "'{id}'", 'user')
  const other = new Router()
  other.get('users/{user}', 'Users@show').where('usr', /\d+/)
  expectRouterError(() => other.compile(), 'FW_ERR_ROUTER_UNKNOWN_PARAM', "'{usr}'")
})

test('throws FW_ERR_ROUTER_DUPLICATE_ROUTE when a method and path are declared twice', () => {
  const router = new Router()
  router.get('a/{x}', 'A@one')
  router.match(['POST', 'GET'], 'a/{y}', 'A@two')
  expectRouterError(() => router.compile(), 'FW_ERR_ROUTER_DUPLICATE_ROUTE', 'GET /a/{y}')
})

test('marks declared routes as not classic', () => {
  const router = new Router()
  router.get('a', 'A@x')
  assert.is(router.find('GET', 'a')?.route.classic, false)
})

test.run()
