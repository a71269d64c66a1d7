import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from '../../../kernel/router/router.js'

const test = suite('router groups')

class Users {
  index(): string {
    return 'users'
  }
}

test('prepends the group prefix to every path', () => {
  const router = new Router()
  router.group({ prefix: '/api/v1/' }, (r) => {
    r.get('products/{id}', 'Products@show')
    r.get('/', 'Api@index')
  })
  assert.equal(
    router.routes().map((route) => route.path),
    ['api/v1/products/{id}', 'api/v1'],
  )
  assert.equal(router.find('GET', '/api/v1/products/3')?.params, { id: '3' })
  assert.ok(router.find('GET', '/api/v1'))
  assert.is(router.find('GET', '/products/3'), undefined)
})

test('places group middleware before the route middleware', () => {
  const router = new Router()
  router.group({ middleware: ['session', 'auth'] }, (r) => r.get('a', 'A@x').middleware('throttle'))
  assert.equal(router.find('GET', 'a')?.route.middleware, ['session', 'auth', 'throttle'])
})

test('merges group permissions with the route permissions', () => {
  const router = new Router()
  router.group({ permissions: ['admin'] }, (r) =>
    r.get('a', 'A@x').permissions('users.edit', 'admin'),
  )
  assert.equal(router.find('GET', 'a')?.route.permissions, ['admin', 'users.edit'])
})

test('prefixes route names with the group name', () => {
  const router = new Router()
  router.group({ name: 'admin.' }, (r) => r.get('users', 'Users@index').name('users'))
  assert.is(router.find('GET', 'users')?.route.name, 'admin.users')
  assert.is(router.url('admin.users'), '/users')
})

test('leaves a route without a name unnamed inside a named group', () => {
  const router = new Router()
  router.group({ name: 'admin.' }, (r) => r.get('users', 'Users@index'))
  assert.is(router.find('GET', 'users')?.route.name, undefined)
})

test('composes nested groups outer-first', () => {
  const router = new Router()
  router.group(
    { prefix: 'admin', middleware: ['web'], permissions: ['staff'], name: 'admin.' },
    (outer) => {
      outer.group(
        { prefix: 'users', middleware: ['auth'], permissions: ['users'], name: 'users.' },
        (inner) => {
          inner.get('{id}', 'Users@show').name('show').middleware('audit')
        },
      )
      outer.get('dashboard', 'Dashboard@index').name('dashboard')
    },
  )
  const show = router.find('GET', 'admin/users/4')?.route
  assert.is(show?.path, 'admin/users/{id}')
  assert.is(show?.name, 'admin.users.show')
  assert.equal(show?.middleware, ['web', 'auth', 'audit'])
  assert.equal(show?.permissions, ['staff', 'users'])
  const dashboard = router.find('GET', 'admin/dashboard')?.route
  assert.is(dashboard?.name, 'admin.dashboard')
  assert.equal(dashboard?.middleware, ['web'])
})

test('removes named middleware with withoutMiddleware, including inherited middleware', () => {
  const router = new Router()
  router.group({ middleware: ['web', 'csrf'] }, (r) => {
    r.post('webhook', 'Hook@run').middleware('signature').withoutMiddleware('csrf')
    r.post('form', 'Form@run')
  })
  assert.equal(router.find('POST', 'webhook')?.route.middleware, ['web', 'signature'])
  assert.equal(router.find('POST', 'form')?.route.middleware, ['web', 'csrf'])
})

test('removes middleware from a whole group with the group withoutMiddleware', () => {
  const router = new Router()
  router.group({ middleware: ['web', 'csrf'] }, (outer) => {
    outer.group({ withoutMiddleware: ['csrf'] }, (inner) =>
      inner.post('api', 'Api@run').middleware('csrf'),
    )
  })
  assert.equal(router.find('POST', 'api')?.route.middleware, ['web'])
})

test('keeps the first occurrence of middleware named twice', () => {
  const router = new Router()
  router.group({ middleware: ['auth', 'web'] }, (r) =>
    r.get('a', 'A@x').middleware('web', 'auth', 'log'),
  )
  assert.equal(router.find('GET', 'a')?.route.middleware, ['auth', 'web', 'log'])
})

test('prefixes string handlers with the group namespace, dot-joined when nested', () => {
  const router = new Router()
  router.group({ namespace: 'Admin' }, (outer) => {
    outer.get('a', 'Users@index')
    outer.group({ namespace: 'Reports' }, (inner) => inner.get('b', 'Sales@index'))
  })
  assert.is(router.find('GET', 'a')?.route.handler, 'Admin.Users@index')
  assert.is(router.find('GET', 'b')?.route.handler, 'Admin.Reports.Sales@index')
})

test('leaves class and function handlers untouched by a namespace', () => {
  const router = new Router()
  const fn = (): string => 'fn'
  router.group({ namespace: 'Admin' }, (r) => {
    r.get('a', [Users, 'index'])
    r.get('b', fn)
  })
  assert.equal(router.find('GET', 'a')?.route.handler, [Users, 'index'])
  assert.is(router.find('GET', 'b')?.route.handler, fn)
})

test('restores the enclosing group when a group body throws', () => {
  const router = new Router()
  assert.throws(() =>
    router.group({ prefix: 'broken', middleware: ['x'] }, () => {
      throw new Error('boom')
    }),
  )
  router.get('after', 'After@x')
  assert.equal(router.find('GET', 'after')?.route.middleware, [])
})

test('applies a group to routes declared by any of its helpers', () => {
  const router = new Router()
  router.group({ prefix: 'old', middleware: ['web'] }, (r) => {
    r.redirect('home', '/')
    r.view('about', 'about')
    r.any('hook', 'Hook@run')
  })
  assert.equal(
    router.routes().map((route) => route.path),
    ['old/home', 'old/about', 'old/hook'],
  )
  assert.ok(router.routes().every((route) => route.middleware[0] === 'web'))
})

test.run()
