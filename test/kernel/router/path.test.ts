import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  anchorPattern,
  canonicalQuery,
  parsePath,
  splitDeclaration,
} from '../../../kernel/router/path.js'
import { Router } from '../../../kernel/router/router.js'
import { expectRouterError } from './expect-router-error.js'

const test = suite('path')

test('parses a declared path into static and placeholder tokens', () => {
  assert.equal(parsePath('api/{id}/edit/{tab?}'), [
    { kind: 'static', value: 'api' },
    { kind: 'param', name: 'id', optional: false },
    { kind: 'static', value: 'edit' },
    { kind: 'param', name: 'tab', optional: true },
  ])
})

test('refuses a placeholder mixed with text in one segment, at the declaration', () => {
  expectRouterError(
    () => new Router().get('files/{name}.json', 'F@x'),
    'FW_ERR_ROUTER_INVALID_PATH',
    "'{name}.json'",
    'whole segment',
  )
  expectRouterError(() => new Router().get('files/{name', 'F@x'), 'FW_ERR_ROUTER_INVALID_PATH')
})

test('refuses a placeholder name used twice in a path', () => {
  expectRouterError(() => parsePath('a/{id}/b/{id}'), 'FW_ERR_ROUTER_INVALID_PATH', "'{id}'")
})

test('refuses an optional placeholder that is not the last segment', () => {
  expectRouterError(() => parsePath('a/{id?}/b'), 'FW_ERR_ROUTER_INVALID_PATH', 'last segment')
})

test('refuses placeholder names that would reach a prototype', () => {
  expectRouterError(() => parsePath('a/{__proto__}'), 'FW_ERR_ROUTER_INVALID_PATH', '__proto__')
  expectRouterError(() => parsePath('a/{constructor}'), 'FW_ERR_ROUTER_INVALID_PATH')
})

test('refuses a global pattern for a name that cannot be a placeholder', () => {
  expectRouterError(
    () => new Router().pattern('a-b', /x/),
    'FW_ERR_ROUTER_INVALID_PATTERN',
    "'a-b'",
  )
})

test('anchors a constraint to the whole segment and drops the g and y flags', () => {
  const re = anchorPattern(/\d+|abc/gi, 'id')
  assert.is(re.source, '^(?:\\d+|abc)$')
  assert.is(re.flags, 'i')
  assert.ok(re.test('ABC'))
  assert.not.ok(re.test('12abc'))
})

test('reports an invalid regular expression with FW_ERR_ROUTER_INVALID_PATTERN', () => {
  expectRouterError(() => anchorPattern('(', 'id'), 'FW_ERR_ROUTER_INVALID_PATTERN', "'{id}'")
  const router = new Router()
  router.get('a/{id}', 'A@x').where('id', '[')
  expectRouterError(() => router.compile(), 'FW_ERR_ROUTER_INVALID_PATTERN')
})

test('splits a declared query string off the path, leaving an optional placeholder whole', () => {
  assert.equal(splitDeclaration('/search/?type=a'), { path: 'search', query: 'type=a' })
  assert.equal(splitDeclaration('archive/{year?}'), { path: 'archive/{year?}', query: undefined })
  assert.equal(splitDeclaration('archive/{year?}?sort=asc'), {
    path: 'archive/{year?}',
    query: 'sort=asc',
  })
  assert.equal(splitDeclaration('plain?'), { path: 'plain', query: undefined })
})

test('writes query strings in one canonical form whatever the pair order or encoding', () => {
  assert.is(canonicalQuery('b=2&a=1'), canonicalQuery('a=1&b=2'))
  assert.is(canonicalQuery('q=a+b'), canonicalQuery('q=a%20b'))
  assert.is(canonicalQuery('bad=%zz'), 'bad=%25zz')
})

test.run()
