import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from '../../../kernel/router/router.js'

// Matching: placeholders, slashes and query strings (methods and helpers: router-methods.test.ts).
const test = suite('router')

const handlerOf = (router: Router, method: string, path: string, qs?: string): unknown =>
  router.find(method, path, qs)?.route.handler
const paramsOf = (router: Router, method: string, path: string, qs?: string): unknown =>
  router.find(method, path, qs)?.params

// Placeholders

test('matches a placeholder against one segment and returns its value', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show')
  assert.equal(paramsOf(router, 'GET', '/products/42'), { id: '42' })
  assert.is(handlerOf(router, 'GET', '/products/42'), 'Products@show')
})

test('never lets a placeholder take more than one segment', () => {
  const router = new Router()
  router.get('files/{name}', 'Files@show')
  assert.is(router.find('GET', '/files/a/b'), undefined)
  assert.is(router.find('GET', '/files'), undefined)
})

test('binds several placeholders in path order', () => {
  const router = new Router()
  router.get('posts/{post}/comments/{comment}', 'Comments@show')
  assert.equal(paramsOf(router, 'GET', 'posts/7/comments/99'), { post: '7', comment: '99' })
})

test('constrains a placeholder with where(), anchored to the whole segment', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show').where('id', /\d+/)
  assert.equal(paramsOf(router, 'GET', 'products/12'), { id: '12' })
  assert.is(router.find('GET', 'products/12a'), undefined)
  assert.is(router.find('GET', 'products/a12'), undefined)
})

test('accepts a where() constraint written as a string', () => {
  const router = new Router()
  router.get('users/{name}', 'Users@show').where('name', '[a-z]+')
  assert.ok(router.find('GET', 'users/ann'))
  assert.is(router.find('GET', 'users/Ann'), undefined)
})

test('keeps the flags of a where() regular expression', () => {
  const router = new Router()
  router.get('users/{name}', 'Users@show').where('name', /[a-z]+/i)
  assert.ok(router.find('GET', 'users/Ann'))
})

test('constrains every placeholder of a name with a global pattern', () => {
  const router = new Router()
  router.pattern('id', /\d+/)
  router.get('products/{id}', 'Products@show')
  router.get('orders/{id}', 'Orders@show')
  assert.is(router.find('GET', 'products/x'), undefined)
  assert.is(router.find('GET', 'orders/x'), undefined)
  assert.ok(router.find('GET', 'orders/3'))
  assert.equal(router.find('GET', 'orders/3')?.route.wheres, { id: /^(?:\d+)$/ })
})

test('lets a route where() override the global pattern', () => {
  const router = new Router()
  router.pattern('id', /\d+/)
  router.get('slugs/{id}', 'Slugs@show').where('id', /[a-z-]+/)
  assert.ok(router.find('GET', 'slugs/a-slug'))
  assert.is(router.find('GET', 'slugs/12'), undefined)
})

test('applies a global pattern declared after the routes', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show')
  assert.ok(router.find('GET', 'products/x'))
  router.pattern('id', /\d+/)
  assert.is(router.find('GET', 'products/x'), undefined)
})

test('percent-decodes placeholder values', () => {
  const router = new Router()
  router.get('tags/{tag}', 'Tags@show')
  assert.equal(paramsOf(router, 'GET', '/tags/caf%C3%A9%20au%20lait'), { tag: 'café au lait' })
})

test('tests a constraint against the decoded value', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show').where('id', /\d+/)
  assert.equal(paramsOf(router, 'GET', '/products/%34%32'), { id: '42' })
})

test('falls back to a placeholder when the static branch leads to no route', () => {
  const router = new Router()
  router.get('users/me/settings', 'Me@settings')
  router.get('users/{id}/posts', 'Users@posts')
  assert.equal(paramsOf(router, 'GET', 'users/me/posts'), { id: 'me' })
})

test('matches an optional last placeholder with and without its segment', () => {
  const router = new Router()
  router.get('archive/{year?}', 'Archive@index')
  assert.equal(paramsOf(router, 'GET', 'archive'), {})
  assert.equal(paramsOf(router, 'GET', 'archive/2024'), { year: '2024' })
})

// Leading and trailing slashes

test('treats a leading slash as optional in declarations and lookups', () => {
  const router = new Router()
  router.get('/a/b', 'A@b')
  router.get('c/{d}', 'C@d')
  for (const path of ['a/b', '/a/b', '//a/b'])
    assert.is(handlerOf(router, 'GET', path), 'A@b', path)
  assert.equal(paramsOf(router, 'GET', '/c/1'), { d: '1' })
  assert.equal(paramsOf(router, 'GET', 'c/1'), { d: '1' })
})

test('ignores a trailing slash in declarations and lookups', () => {
  const router = new Router()
  router.get('products/', 'Products@index')
  router.get('products/{id}/', 'Products@show')
  assert.is(handlerOf(router, 'GET', '/products/'), 'Products@index')
  assert.is(handlerOf(router, 'GET', 'products'), 'Products@index')
  assert.equal(paramsOf(router, 'GET', '/products/5/'), { id: '5' })
  assert.equal(
    router.routes().map((r) => r.path),
    ['products', 'products/{id}'],
  )
})

test('matches the root route from an empty path and from a slash', () => {
  const router = new Router()
  router.get('/', 'Home@index')
  for (const path of ['', '/', '//']) assert.is(handlerOf(router, 'GET', path), 'Home@index', path)
  assert.is(router.routes()[0]?.path, '')
})

// Query string

test('ignores the query string when matching', () => {
  const router = new Router()
  router.get('products/{id}', 'Products@show')
  assert.equal(paramsOf(router, 'GET', '/products/5', 'sort=name&page=2'), { id: '5' })
  assert.equal(paramsOf(router, 'GET', '/products/5?sort=name'), { id: '5' })
})

test('never puts the query string into a placeholder', () => {
  const router = new Router()
  router.get('search/{term}', 'Search@run')
  assert.equal(paramsOf(router, 'GET', '/search/shoes?size=42/43'), { term: 'shoes' })
  assert.is(router.find('GET', '/search/?term=shoes'), undefined)
})

test('matches a route declared with a query string only for that exact form', () => {
  const router = new Router()
  router.get('search?type=a', 'Search@typeA')
  assert.is(handlerOf(router, 'GET', 'search', 'type=a'), 'Search@typeA')
  assert.is(handlerOf(router, 'GET', '/search?type=a'), 'Search@typeA')
  assert.is(router.find('GET', 'search', 'type=b'), undefined)
  assert.is(router.find('GET', 'search', 'type=a&x=1'), undefined)
  assert.is(router.find('GET', 'search'), undefined)
  assert.is(router.routes()[0]?.query, 'type=a')
})

test('compares the declared query form whatever the order of its pairs', () => {
  const router = new Router()
  router.get('search?type=a&sort=name', 'Search@sorted')
  assert.is(handlerOf(router, 'GET', 'search', 'sort=name&type=a'), 'Search@sorted')
})

// Precedence: which of two routes that could answer a request does, whatever their declaration
// order. One row a rule: the GET routes declared `[path, handler, where id]`, then each request
// `[path, query, handler that answers]`.
type Declared = [path: string, handler: string, id?: RegExp]
type Answered = [path: string, qs: string | undefined, handler: string]
const PRECEDENCE: [rule: string, routes: Declared[], answers: Answered[]][] = [
  [
    'prefers a static segment to a placeholder whatever the declaration order',
    [
      ['users/{id}', 'Users@show'],
      ['users/me', 'Users@me'],
    ],
    [
      ['users/me', undefined, 'Users@me'],
      ['users/you', undefined, 'Users@show'],
    ],
  ],
  [
    'tries a constrained placeholder before an unconstrained one at the same place',
    [
      ['items/{slug}', 'Items@bySlug'],
      ['items/{id}', 'Items@byId', /\d+/],
    ],
    [
      ['items/12', undefined, 'Items@byId'],
      ['items/twelve', undefined, 'Items@bySlug'],
    ],
  ],
  [
    'prefers the query-string route to the plain route at the same path',
    [
      ['search', 'Search@plain'],
      ['search?type=a', 'Search@typeA'],
    ],
    [
      ['search', 'type=a', 'Search@typeA'],
      ['search', 'type=b', 'Search@plain'],
      ['search', undefined, 'Search@plain'],
    ],
  ],
]

for (const [rule, routes, answers] of PRECEDENCE)
  test(rule, () => {
    const router = new Router()
    for (const [path, handler, id] of routes) {
      const route = router.get(path, handler)
      if (id !== undefined) route.where('id', id)
    }
    for (const [path, qs, handler] of answers)
      assert.is(handlerOf(router, 'GET', path, qs), handler, `${path}?${qs ?? ''}`)
  })

test.run()
