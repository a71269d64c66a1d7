import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from '../../../kernel/router/router.js'
import { expectRouterError } from './expect-router-error.js'

const test = suite('url')

function router(): Router {
  const r = new Router()
  r.get('products/{id}', 'Products@show').name('products.show')
  r.get('posts/{post}/comments/{comment}', 'Comments@show').name('comments.show')
  r.get('archive/{year?}', 'Archive@index').name('archive')
  r.get('search?type=a', 'Search@a').name('search.a')
  r.get('/', 'Home@index').name('home')
  return r
}

test('generates a URL from a route name and its parameters', () => {
  assert.is(router().url('products.show', { id: 5 }), '/products/5')
  assert.is(router().url('comments.show', { post: 'p', comment: 9 }), '/posts/p/comments/9')
  assert.is(router().url('home'), '/')
})

test('finds the route by its full name, group name prefix included', () => {
  const r = new Router()
  r.group({ prefix: 'admin', name: 'admin.' }, (g) =>
    g.get('users/{id}', 'Users@show').name('users.show'),
  )
  assert.is(r.url('admin.users.show', { id: 1 }), '/admin/users/1')
  expectRouterError(
    () => r.url('users.show', { id: 1 }),
    'FW_ERR_ROUTER_UNKNOWN_NAME',
    "'users.show'",
    'admin.users.show',
  )
})

test('throws FW_ERR_ROUTER_MISSING_PARAM naming the missing placeholder', () => {
  expectRouterError(
    () => router().url('comments.show', { post: 1 }),
    'FW_ERR_ROUTER_MISSING_PARAM',
    "'{comment}'",
    'comments.show',
  )
  expectRouterError(
    () => router().url('products.show', { id: '' }),
    'FW_ERR_ROUTER_MISSING_PARAM',
    "'{id}'",
  )
})

test('appends parameters that fill no placeholder as a query string', () => {
  assert.is(
    router().url('products.show', { id: 5, tab: 'reviews', page: 2 }),
    '/products/5?tab=reviews&page=2',
  )
})

test('appends the query argument after the extra parameters', () => {
  assert.is(router().url('products.show', { id: 5, a: 1 }, { b: 'x y' }), '/products/5?a=1&b=x+y')
})

test('percent-encodes placeholder values', () => {
  assert.is(router().url('products.show', { id: 'a/b c' }), '/products/a%2Fb%20c')
})

test('omits an optional placeholder given no value', () => {
  assert.is(router().url('archive'), '/archive')
  assert.is(router().url('archive', { year: 2024 }), '/archive/2024')
})

test('keeps the query form of a route declared with a query string', () => {
  assert.is(router().url('search.a'), '/search?type=a')
  assert.is(router().url('search.a', {}, { page: 2 }), '/search?type=a&page=2')
})

test('gives back the same params when the generated URL is looked up', () => {
  const r = router()
  const params = { post: 'hello world', comment: 'ü/ß' }
  assert.equal(r.find('GET', r.url('comments.show', params))?.params, params)
})

test('throws FW_ERR_ROUTER_UNKNOWN_NAME for a name no route has', () => {
  expectRouterError(() => router().url('nope'), 'FW_ERR_ROUTER_UNKNOWN_NAME', "'nope'", '.name(')
})

test('throws FW_ERR_ROUTER_DUPLICATE_NAME at compile for a name used twice', () => {
  const r = new Router()
  r.get('a', 'A@x').name('same')
  r.group({ name: 'sa' }, (g) => g.get('b', 'B@x').name('me'))
  expectRouterError(() => r.compile(), 'FW_ERR_ROUTER_DUPLICATE_NAME', "'same'", '/a', '/b')
})

test.run()
