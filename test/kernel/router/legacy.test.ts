import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { decomposeLegacy, decomposeLegacyPath } from '../../../kernel/router/legacy.js'

const test = suite('legacy')

const shape = (r: string, get: Record<string, unknown> = {}): unknown => {
  const d = decomposeLegacy(r, get)
  return { controller: d.controller, action: d.action, option: d.option, get: d.get }
}

// How a legacy path decomposes into controller, action, option and pairs (docs/routing.md
// "Classic controllers and the legacy `r` parameter"), and the rules under that table: one row a
// case, `r` and the GET it arrived with, then what `decomposeLegacy` makes of them.
type Decomposed = [controller: string, action: string, option: string | undefined, get: object]
const DECOMPOSITIONS: [r: string, get: Record<string, unknown>, into: Decomposed][] = [
  ['', {}, ['', '', undefined, {}]],
  ['a', {}, ['a', '', undefined, {}]],
  ['a/b', {}, ['a', 'b', undefined, {}]],
  ['a/b/x', {}, ['a', 'b', 'x', {}]],
  ['a/b/c/d', {}, ['a', 'b', undefined, { c: 'd' }]],
  // A pair plus a null key that is also the option.
  ['a/b/c/d/e', {}, ['a', 'b', 'e', { c: 'd', e: null }]],
  // Pairing goes on after the first pair.
  ['a/b/c/d/e/f', {}, ['a', 'b', undefined, { c: 'd', e: 'f' }]],
  ['a/b/c/d/e/f/g', {}, ['a', 'b', 'g', { c: 'd', e: 'f', g: null }]],
  // Existing GET keys are kept: path pairs never overwrite them.
  ['a/b/c/d', { keep: '1', c: 'original' }, ['a', 'b', undefined, { keep: '1', c: 'original' }]],
  ['a/b/c/d/e', { e: 'set' }, ['a', 'b', 'e', { e: 'set', c: 'd' }]],
  // The branch is chosen by the slashes of the path, never of a query inside r.
  ['a/b?next=/x/y/z', {}, ['a', 'b', undefined, { next: '/x/y/z' }]],
  ['a/b/x?p=1/2', {}, ['a', 'b', 'x', { p: '1/2' }]],
]

for (const [r, get, [controller, action, option, pairs]] of DECOMPOSITIONS)
  test(`decomposes "${r}" over GET ${JSON.stringify(get)} into ${controller}/${action}, option ${option}, GET ${JSON.stringify(pairs)}`, () => {
    assert.equal(shape(r, get), { controller, action, option, get: pairs })
  })

test('does not count a trailing slash as a segment', () => {
  assert.equal(shape('a/'), shape('a'))
  assert.equal(shape('a/b/'), shape('a/b'))
  assert.equal(shape('a/b/x/'), shape('a/b/x'))
  assert.equal(shape('a/b/c/d//'), shape('a/b/c/d'))
})

test('never turns the controller or action segments into GET keys', () => {
  assert.not.ok('a' in decomposeLegacy('a/b/x', {}).get)
  assert.not.ok('a' in decomposeLegacy('a/b/c/d', {}).get)
})

test('parses a query inside r into GET, over the keys already there', () => {
  assert.equal(decomposeLegacy('a/b?x=1&y=2', { x: '0', z: '3' }).get, { x: '1', z: '3', y: '2' })
})

test('resets the action on every decomposition', () => {
  assert.is(decomposeLegacy('a/b', {}).action, 'b')
  assert.is(decomposeLegacy('c', {}).action, '')
})

test('drops r itself from GET', () => {
  assert.equal(decomposeLegacy('a/b', { r: 'a/b', keep: 1 }).get, { keep: 1 })
})

test('returns the segments after controller and action as args', () => {
  assert.equal(decomposeLegacy('a/b/c/d/e', {}).args, ['c', 'd', 'e'])
  assert.equal(decomposeLegacy('a/b/x', {}).args, ['x'])
  assert.equal(decomposeLegacy('a', {}).args, [])
})

test('keeps r as it arrived in originalRequestNoChange and decomposes the rewritten value', () => {
  const plain = decomposeLegacy('shop/view/', {})
  assert.is(plain.originalRequestNoChange, 'shop/view/')
  assert.is(plain.originalRequest, 'shop/view/')
  const rewritten = decomposeLegacy('admin/users/edit/5', {}, 'users/edit/5')
  assert.is(rewritten.originalRequestNoChange, 'admin/users/edit/5')
  assert.is(rewritten.originalRequest, 'users/edit/5')
  assert.is(rewritten.controller, 'users')
  assert.is(rewritten.option, '5')
})

test('does not change the GET object it was given', () => {
  const get = { r: 'a/b/c/d', keep: '1' }
  decomposeLegacy('a/b/c/d', get)
  assert.equal(get, { r: 'a/b/c/d', keep: '1' })
})

test('collapses repeated slashes and ignores leading ones', () => {
  assert.equal(shape('a//b'), shape('a/b'))
  assert.equal(shape('/a/b/x'), shape('a/b/x'))
})

test('keeps a __proto__ segment an ordinary key, never the prototype', () => {
  const get = decomposeLegacy('a/b/__proto__/polluted/constructor/x', {}).get
  assert.is(Object.getPrototypeOf(get), Object.prototype)
  assert.is(get['__proto__' as keyof typeof get], 'polluted')
  assert.ok(Object.hasOwn(get, '__proto__'))
  assert.is(({} as Record<string, unknown>).polluted, undefined)
  const fromQuery = decomposeLegacy('a/b?__proto__=x', {}).get
  assert.ok(Object.hasOwn(fromQuery, '__proto__'))
})

test('percent-decodes path segments and refuses malformed or separator-hiding ones', () => {
  const d = decomposeLegacyPath('/shop/view/caf%C3%A9', {})
  assert.is(d?.option, 'café')
  assert.is(d?.originalRequestNoChange, 'shop/view/caf%C3%A9')
  assert.is(decomposeLegacyPath('/shop/view/%E0%A4%A', {}), undefined)
  assert.is(decomposeLegacyPath('/shop/view/a%2Fb', {}), undefined)
  assert.is(decomposeLegacyPath('/shop/view/a%3Fb', {}), undefined)
})

test('handles a very long r without trouble', () => {
  const r = `a/b/${Array.from({ length: 5000 }, (_, i) => `k${i}/v${i}`).join('/')}`
  const d = decomposeLegacy(r, {})
  assert.is(d.get.k4999, 'v4999')
  assert.is(d.args.length, 10000)
})

test.run()
