import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from '../../../kernel/router/router.js'
import { expectRouterError } from './expect-router-error.js'

const test = suite('classic')

class Shop {
  index(): string {
    return 'index'
  }
  view(args: string[]): string[] {
    return args
  }
  get total(): number {
    return 0
  }
}

class Outlet extends Shop {
  clearance(): string {
    return 'sale'
  }
}

function router(): Router {
  const r = new Router()
  r.classic('shop', Shop)
  r.classic('outlet', Outlet)
  return r
}

test('matches r from the query string to a registered classic controller', () => {
  const match = router().matchLegacy('/', 'r=shop/view/5&keep=1', { r: 'shop/view/5', keep: '1' })
  assert.is(match?.route.classic, true)
  assert.equal(match?.route.handler, [Shop, 'view'])
  assert.is(match?.legacy?.controller, 'shop')
  assert.is(match?.legacy?.action, 'view')
  assert.is(match?.legacy?.option, '5')
  assert.equal(match?.legacy?.args, ['5'])
  assert.equal(match?.legacy?.get, { keep: '1' })
})

test('matches a path whose first segment names a classic controller', () => {
  const match = router().matchLegacy('/shop/view/id/7', '', {})
  assert.equal(match?.route.handler, [Shop, 'view'])
  assert.equal(match?.legacy?.get, { id: '7' })
  assert.is(match?.legacy?.originalRequestNoChange, 'shop/view/id/7')
})

test('ignores a query string that does not carry r', () => {
  assert.equal(router().matchLegacy('/shop/view', 'page=2', { page: '2' })?.legacy?.get, {
    page: '2',
  })
})

test('runs index when the request names no action', () => {
  assert.equal(router().matchLegacy('/shop', '', {})?.route.handler, [Shop, 'index'])
  assert.equal(router().matchLegacy('/', 'r=shop', {})?.route.handler, [Shop, 'index'])
  assert.is(router().matchLegacy('/shop', '', {})?.legacy?.action, '')
})

test('answers nothing for a controller that is not registered', () => {
  assert.is(router().matchLegacy('/', 'r=nobody/here', {}), undefined)
  assert.is(router().matchLegacy('/nobody/here', '', {}), undefined)
  assert.is(new Router().matchLegacy('/shop', 'r=shop', {}), undefined)
})

test('answers nothing for an action the class does not have', () => {
  assert.is(router().matchLegacy('/shop/missing', '', {}), undefined)
  assert.is(router().matchLegacy('/', 'r=shop/missing', {}), undefined)
})

test('never takes constructor, accessors or Object.prototype methods for actions', () => {
  for (const action of [
    'constructor',
    'total',
    'toString',
    '__proto__',
    'hasOwnProperty',
    'valueOf',
  ]) {
    assert.is(router().matchLegacy(`/shop/${action}`, '', {}), undefined, action)
    assert.is(router().matchLegacy('/', `r=shop/${action}`, {}), undefined, action)
  }
})

test('reaches inherited methods as actions', () => {
  assert.equal(router().matchLegacy('/outlet/view', '', {})?.route.handler, [Outlet, 'view'])
  assert.equal(router().matchLegacy('/outlet/clearance', '', {})?.route.handler, [
    Outlet,
    'clearance',
  ])
})

test('compares controller names without regard to case', () => {
  assert.equal(router().matchLegacy('/SHOP/view', '', {})?.route.handler, [Shop, 'view'])
})

test('gives classic controllers declared in a group the group middleware and permissions', () => {
  const r = new Router()
  r.group({ prefix: 'ignored', middleware: ['web', 'auth'], permissions: ['shop'] }, (g) =>
    g.classic('shop', Shop),
  )
  const route = r.matchLegacy('/shop/view', '', {})?.route
  assert.equal(route?.middleware, ['web', 'auth'])
  assert.equal(route?.permissions, ['shop'])
  assert.is(route?.path, 'shop/view')
})

test('shares one route object per action', () => {
  const r = router()
  assert.is(
    r.matchLegacy('/shop/view/1', '', {})?.route,
    r.matchLegacy('/', 'r=shop/view/2', {})?.route,
  )
})

test('decomposes a rewritten path when one is given', () => {
  const match = router().matchLegacy('/admin/shop/view/9', '', {}, 'shop/view/9')
  assert.equal(match?.route.handler, [Shop, 'view'])
  assert.is(match?.legacy?.originalRequest, 'shop/view/9')
  assert.is(match?.legacy?.originalRequestNoChange, 'admin/shop/view/9')
})

test('refuses malformed percent-encoding in a legacy path without throwing', () => {
  assert.is(router().matchLegacy('/shop/view/%E0%A4%A', '', {}), undefined)
  assert.equal(router().matchLegacy('/shop/view/%41', '', {})?.legacy?.option, 'A')
})

test('reads a question mark inside r as the start of its own query', () => {
  const match = router().matchLegacy('/', `r=${encodeURIComponent('shop/view?next=/a/b/c')}`, {})
  assert.is(match?.legacy?.action, 'view')
  assert.is(match?.legacy?.option, undefined)
  assert.equal(match?.legacy?.get, { next: '/a/b/c' })
})

test('refuses a classic controller name that is not one segment', () => {
  expectRouterError(() => new Router().classic('a/b', Shop), 'FW_ERR_ROUTER_INVALID_PATH', "'a/b'")
  expectRouterError(() => new Router().classic('', Shop), 'FW_ERR_ROUTER_INVALID_PATH')
})

test.run()
