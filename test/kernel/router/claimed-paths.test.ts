// Paths plugins claim at the site root (docs/routing.md "Claimed paths").
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router, RouterError, type PathClaim } from 'fw'

const test = suite('claimed paths')

test('the kernel claims /_fw/* and /.well-known/* on every router', () => {
  const router = new Router()
  assert.equal(router.claims(), [
    { owner: 'fw', path: '/_fw/*' },
    { owner: 'fw', path: '/.well-known/*' },
  ])
  for (const path of ['/_fw', '/_fw/', '/_fw/debugbar.js', '/.well-known/health'])
    assert.ok(router.isClaimed(path), path)
  for (const path of ['/_fwx', '/.well-knownx', '/', '', '/x/_fw/a'])
    assert.not.ok(router.isClaimed(path), path)
})

test('an exact claim, a claim of a subtree and a claim of a prefix match as written', () => {
  const router = new Router()
  router.claim('auth', '/account/*', '/login')
  router.claim('health', '/health*')
  const yes = [
    '/login',
    '/login/',
    '/account',
    '/account/',
    '/account/login',
    '/health',
    '/healthz',
  ]
  const no = ['/login/x', '/logins', '/accounts', '/hello', '/x/health', '/Health']
  for (const path of yes) assert.ok(router.isClaimed(path), path)
  for (const path of no) assert.not.ok(router.isClaimed(path), path)
  assert.equal(router.claims().slice(2), [
    { owner: 'auth', path: '/account/*' },
    { owner: 'auth', path: '/login' },
    { owner: 'health', path: '/health*' },
  ])
})

test('a claim is matched literally: its dots and brackets are no pattern', () => {
  const router = new Router()
  router.claim('x', '/a.b(c)*')
  assert.ok(router.isClaimed('/a.b(c)/d'))
  assert.not.ok(router.isClaimed('/axb(c)'))
})

test('refuses a claim that does not start with a slash or has an inner star', () => {
  const router = new Router()
  for (const path of ['health*', '/a*/b']) {
    try {
      router.claim('x', path as PathClaim)
      assert.unreachable(path)
    } catch (error) {
      assert.instance(error, RouterError)
      assert.is((error as RouterError).code, 'FW_ERR_ROUTER_INVALID_PATH')
      assert.match((error as Error).message, `'${path}' claimed by 'x'`)
    }
  }
})

test.run()
