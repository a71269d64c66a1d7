import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { safeReturnPath } from 'fw/plugins/auth'

const test = suite('auth safeReturnPath')

test('keeps a same-site path with its query and fragment', () => {
  assert.is(safeReturnPath('/'), '/')
  assert.is(safeReturnPath('/products?page=2&sort=-price'), '/products?page=2&sort=-price')
  assert.is(safeReturnPath('/a/b#c'), '/a/b#c')
  assert.is(safeReturnPath('/search?q=100%25'), '/search?q=100%25')
  assert.is(safeReturnPath('/a/../b?x=1'), '/b?x=1')
})

test('refuses every way off the site', () => {
  for (const attempt of [
    '//evil.test',
    '///evil.test',
    'https://evil.test',
    'http:evil.test',
    '/\\evil.test',
    '\\\\evil.test',
    '/\\/evil.test',
    '/%2F%2Fevil.test',
    '%2F%2Fevil.test',
    '/%5Cevil.test',
    '/%252F%252Fevil.test',
    '/%5C%5Cevil.test',
    '/\t/evil.test',
    '/\n/evil.test',
    '/%09/evil.test',
    // Each resolves (dot segments removed) to a path starting with `//`.
    '/x/..//evil.test',
    '/.//evil.test',
    '/..//evil.test',
    '/%2e//evil.test',
    '/%2E%2E//evil.test',
    '/%2e%2e/%2e%2e//evil.test',
    '/%2e%2e/%2e%2e//evil.test/path?q=1',
    '/a/%2e%2e/%2fevil.test',
    'javascript:alert(1)',
    'evil.test',
    '',
    '/%E0%A4%A',
  ]) {
    assert.is(safeReturnPath(attempt), undefined, JSON.stringify(attempt))
  }
})

test('refuses what is not a string', () => {
  for (const value of [undefined, null, 1, ['/'], { a: '/' }])
    assert.is(safeReturnPath(value), undefined)
})

test.run()
