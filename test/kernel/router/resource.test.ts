import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from '../../../kernel/router/router.js'
import { expectRouterError } from './expect-router-error.js'

const test = suite('resource')

class Photos {
  index(): void {}
  create(): void {}
  store(): void {}
  show(): void {}
  edit(): void {}
  update(): void {}
  destroy(): void {}
}

class ReadOnlyPhotos {
  index(): void {}
  show(): void {}
}

const table = (router: Router): string[] =>
  router
    .routes()
    .map(
      (r) =>
        `${r.methods.join('|')} ${r.path} ${r.name ?? ''} ${Array.isArray(r.handler) ? r.handler[1] : String(r.handler)}`,
    )

test('generates the seven resource routes with their names and actions', () => {
  const router = new Router()
  router.resource('photos', Photos)
  assert.equal(table(router), [
    'GET photos photos.index index',
    'GET photos/create photos.create create',
    'POST photos photos.store store',
    'GET photos/{id} photos.show show',
    'GET photos/{id}/edit photos.edit edit',
    'PATCH photos/{id} photos.update update',
    'DELETE photos/{id} photos.destroy destroy',
  ])
  assert.equal(router.find('GET', 'photos/1')?.route.handler, [Photos, 'show'])
})

test('answers each resource request with the right action', () => {
  const router = new Router()
  router.resource('photos', Photos)
  const action = (method: string, path: string): unknown =>
    (router.find(method, path)?.route.handler as readonly unknown[] | undefined)?.[1]
  assert.is(action('GET', '/photos'), 'index')
  assert.is(action('GET', '/photos/create'), 'create')
  assert.is(action('POST', '/photos'), 'store')
  assert.is(action('GET', '/photos/5'), 'show')
  assert.is(action('GET', '/photos/5/edit'), 'edit')
  assert.is(action('PATCH', '/photos/5'), 'update')
  assert.is(action('PUT', '/photos/5'), undefined)
  assert.equal(router.allowedMethodsFor('PUT', 'photos/5'), ['DELETE', 'GET', 'HEAD', 'PATCH'])
  assert.is(action('DELETE', '/photos/5'), 'destroy')
  assert.equal(router.find('GET', '/photos/5/edit')?.params, { id: '5' })
})

test('keeps only the given actions with only()', () => {
  const router = new Router()
  router.resource('photos', Photos).only('index', 'show')
  assert.equal(
    router.routes().map((r) => r.name),
    ['photos.index', 'photos.show'],
  )
  assert.equal(router.find('GET', 'photos/create')?.params, { id: 'create' })
})

test('leaves out the given actions with except()', () => {
  const router = new Router()
  router.resource('photos', Photos).except('create', 'edit', 'destroy')
  assert.equal(
    router.routes().map((r) => r.name),
    ['photos.index', 'photos.store', 'photos.show', 'photos.update'],
  )
})

test('renames routes one by one with names() given a map', () => {
  const router = new Router()
  router.resource('photos', Photos).only('index', 'show').names({ index: 'gallery' })
  assert.equal(
    router.routes().map((r) => r.name),
    ['gallery', 'photos.show'],
  )
})

test('replaces the name prefix with names() given a string', () => {
  const router = new Router()
  router.resource('photos', Photos).only('index').names('pictures')
  assert.is(router.url('pictures.index'), '/photos')
})

test('throws FW_ERR_ROUTER_MISSING_ACTION naming the route and suggesting except()', () => {
  const router = new Router()
  router.resource('photos', ReadOnlyPhotos)
  expectRouterError(
    () => router.compile(),
    'FW_ERR_ROUTER_MISSING_ACTION',
    'GET /photos/create',
    'photos.create',
    'ReadOnlyPhotos',
    ".except('create')",
  )
  const fixed = new Router()
  fixed.resource('photos', ReadOnlyPhotos).only('index', 'show')
  assert.is(fixed.routes().length, 2)
})

test('refuses an action name that is not a resource action', () => {
  const router = new Router()
  expectRouterError(
    () => router.resource('photos', Photos).only('index', 'list' as 'index'),
    'FW_ERR_ROUTER_UNKNOWN_ACTION',
    "'list'",
    'destroy',
  )
})

test('applies the group prefix, name prefix and middleware to a resource', () => {
  const router = new Router()
  router.group({ prefix: 'admin', name: 'admin.', middleware: ['auth'] }, (r) =>
    r.resource('photos', Photos).only('show').middleware('audit'),
  )
  const route = router.find('GET', 'admin/photos/3')?.route
  assert.is(route?.name, 'admin.photos.show')
  assert.equal(route?.middleware, ['auth', 'audit'])
  assert.is(router.url('admin.photos.show', { id: 3 }), '/admin/photos/3')
})

test('uses namespaced Class@action string handlers for a controller given by name', () => {
  const router = new Router()
  router.group({ namespace: 'Admin' }, (r) =>
    r.resource('photos', 'PhotoController').only('index', 'destroy'),
  )
  assert.equal(
    router.routes().map((r) => r.handler),
    ['Admin.PhotoController@index', 'Admin.PhotoController@destroy'],
  )
})

test('names routes of a nested path with dots', () => {
  const router = new Router()
  router.resource('shop/photos', Photos).only('index')
  assert.is(router.routes()[0]?.name, 'shop.photos.index')
  assert.is(router.url('shop.photos.index'), '/shop/photos')
})

test.run()
