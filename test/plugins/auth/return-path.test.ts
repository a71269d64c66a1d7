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

test('keeps what decodes to a plain same-site path, however often it was encoded', () => {
  assert.is(safeReturnPath('/a%20b'), '/a%20b')
  assert.is(safeReturnPath('/caf%C3%A9?q=%E2%82%AC'), '/caf%C3%A9?q=%E2%82%AC')
  assert.is(safeReturnPath('/search?q=%2525'), '/search?q=%2525')
  assert.is(safeReturnPath('/search?next=%2F%2Fnot-a-host'), '/search?next=%2F%2Fnot-a-host')
})

/** Encodes every character of `path` but its first `/` as `%XX`, `times` times over. */
const encoded = (path: string, times: number): string => {
  let rest = path.slice(1)
  for (let i = 0; i < times; i++)
    rest = [...Buffer.from(rest)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')
  return `/${rest}`
}

test('refuses a way off the site hidden under any number of encodings', () => {
  const attempts = [
    '/%252e%252e//evil.test',
    '/%252E%252E//evil.test',
    '/%25252e%25252e//evil.test',
    '/%2525252e%2525252e//evil.test',
    '/%252f%252fevil.test',
    '/%25252f%25252fevil.test',
    '/%255cevil.test',
    '/%255C%255Cevil.test',
    '/%252f%255cevil.test',
    '/%2509/evil.test',
    '/%250a/evil.test',
    '/%250d%250a/evil.test',
    '/x/%252e%252e/%252fevil.test',
    '/%252e%252e%252f%252fevil.test',
    '/%252e%252e//evil.test%',
    '/%252e%252e//evil.test%25',
    '/%25%32%65%25%32%65//evil.test',
  ]
  for (const attack of ['/..//evil.test', '//evil.test', '/\\evil.test', '/\t/evil.test'])
    for (let times = 1; times <= 4; times++) attempts.push(encoded(attack, times))
  for (const attempt of attempts)
    assert.is(safeReturnPath(attempt), undefined, JSON.stringify(attempt))
})

test('refuses a value still changing after five decodings', () => {
  assert.is(safeReturnPath(encoded('/a', 5)), encoded('/a', 5))
  assert.is(safeReturnPath(encoded('/a', 6)), undefined)
})

test('refuses what is not a string', () => {
  for (const value of [undefined, null, 1, ['/'], { a: '/' }])
    assert.is(safeReturnPath(value), undefined)
})

test.run()
