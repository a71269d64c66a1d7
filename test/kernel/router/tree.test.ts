import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from '../../../kernel/router/router.js'

// Matching through the tree, with hostile input: the router must answer "no match", never throw.
const test = suite('tree')

function router(): Router {
  const r = new Router()
  r.get('files/{name}', 'Files@show')
  r.get('files/{name}/raw', 'Files@raw')
  r.get('admin', 'Admin@index')
  r.get('a/b', 'A@b')
  r.post('a/b', 'A@store')
  return r
}

// Paths that must find no route and allow no method, by the rule that refuses them.
const NO_MATCH: [rule: string, paths: string[]][] = [
  [
    'malformed percent-encoding',
    ['/files/%', '/files/%E0%A4%A', '/files/%zz', '/%/b', '/files/%C3'],
  ],
  [
    'a dot segment, never put into a placeholder',
    ['/files/..', '/files/.', '/files/%2E%2E', '/files/%2e', '/files/../raw'],
  ],
  ['.. segments, never resolved', ['/files/x/../../admin', '/a/../admin']],
  ['an encoded slash, kept inside one segment', ['/a%2Fb']],
  ['an empty segment, so doubled inner slashes', ['/a//b', '/files//raw']],
]

for (const [rule, paths] of NO_MATCH)
  test(`answers no match, without throwing, for ${rule}`, () => {
    const r = router()
    for (const path of paths) {
      assert.is(r.find('GET', path), undefined, path)
      assert.equal(r.allowedMethodsFor('GET', path), [], path)
    }
  })

test('puts a segment of dots and more into a placeholder', () => {
  const r = router()
  assert.equal(r.find('GET', '/files/...')?.params, { name: '...' })
  assert.equal(r.find('GET', '/files/.env')?.params, { name: '.env' })
})

test('keeps an encoded slash inside one segment', () => {
  const r = router()
  assert.equal(r.find('GET', '/files/a%2Fb')?.params, { name: 'a/b' })
  assert.equal(r.find('GET', '/files/a%2Fb/raw')?.route.handler, 'Files@raw')
})

test('decodes encoded characters of static segments', () => {
  const r = router()
  assert.is(r.find('GET', '/%61dmin')?.route.handler, 'Admin@index')
})

// No clock here: a walk that is not linear in the path would take hours on these sizes (10^5
// segments, 10^6 characters), and the test runner fails a file that prints nothing for minutes.
test('answers without throwing for very long paths', () => {
  const r = router()
  const deep = `/files/${'x/'.repeat(100_000)}raw`
  const wide = `/files/${'y'.repeat(1_000_000)}`
  assert.is(r.find('GET', deep), undefined)
  assert.is(r.find('GET', `/${'z'.repeat(1_000_000)}`), undefined)
  assert.is(r.find('GET', wide)?.params.name?.length, 1_000_000)
  assert.equal(r.allowedMethodsFor('GET', deep), [])
})

test('finds a static route through the fast path and through the walk alike', () => {
  const r = router()
  for (const path of ['a/b', '/a/b', '/a/b/', '//a/b//', 'a/b?x=1', '/a/%62'])
    assert.is(r.find('GET', path)?.route.handler, 'A@b', path)
  assert.is(r.find('POST', '/a/b/')?.route.handler, 'A@store')
})

test('lets placeholders at the same place carry different names in different routes', () => {
  const r = new Router()
  r.get('users/{id}', 'Users@show')
  r.get('users/{slug}/posts', 'Users@posts')
  r.delete('users/{user}', 'Users@destroy')
  assert.equal(r.find('GET', 'users/5')?.params, { id: '5' })
  assert.equal(r.find('GET', 'users/ann/posts')?.params, { slug: 'ann' })
  assert.equal(r.find('DELETE', 'users/5')?.params, { user: '5' })
})

test('backtracks through several levels of placeholders', () => {
  const r = new Router()
  r.get('{a}/x/{b}/y', 'deep')
  r.get('{a}/{c}/z', 'other')
  r.get('s/x/t/q', 'static')
  assert.equal(r.find('GET', 's/x/t/y')?.params, { a: 's', b: 't' })
  assert.equal(r.find('GET', 's/x/z')?.params, { a: 's', c: 'x' })
  assert.is(r.find('GET', 's/x/t/q')?.route.handler, 'static')
})

test('answers with params that belong to each lookup', () => {
  const r = router()
  const first = r.find('GET', 'files/one')
  const second = r.find('GET', 'files/two')
  assert.equal(first?.params, { name: 'one' })
  assert.equal(second?.params, { name: 'two' })
})

test('answers a static route with a frozen shared match', () => {
  const r = router()
  const match = r.find('GET', 'admin')
  assert.ok(Object.isFrozen(match))
  assert.is(r.find('GET', '/admin'), match)
})

test('matches a thousand routes as it matches ten', () => {
  const r = new Router()
  for (let i = 0; i < 1000; i++) {
    r.get(`r${i}/static`, `static${i}`)
    r.get(`r${i}/items/{id}`, `items${i}`).where('id', /\d+/)
  }
  assert.is(r.find('GET', '/r999/static')?.route.handler, 'static999')
  assert.equal(r.find('GET', '/r500/items/7')?.params, { id: '7' })
  assert.is(r.find('GET', '/r500/items/x'), undefined)
  assert.is(r.find('GET', '/r1000/static'), undefined)
})

test('finds every one of many static siblings, and only those', () => {
  const r = new Router()
  for (let i = 0; i < 300; i++) r.get(`s${i}/items/{id}`, `S${i}@show`)
  r.get('s7/items/{id}/tags/{tag}', 'Tags@show')
  for (const i of [0, 1, 9, 10, 99, 100, 299])
    assert.equal(r.find('GET', `/s${i}/items/4`)?.route.handler, `S${i}@show`, `s${i}`)
  assert.equal(r.find('GET', '/s7/items/4/tags/x')?.params, { id: '4', tag: 'x' })
  for (const path of [
    '/s300/items/4',
    '/s/items/4',
    '/s1x/items/4',
    '/s7/items/4/tags',
    '/s7/items',
  ])
    assert.is(r.find('GET', path), undefined, path)
})

test('finds each of one to five static siblings, whatever prefix they share', () => {
  for (const names of [
    ['100%25'],
    ['item', 'items'],
    ['a', 'ab', 'abc'],
    ['x', 'rates', 'rat', '100%25'],
    ['one', 'two', 'three', 'four', 'five'],
  ]) {
    const r = new Router()
    for (const name of names) r.get(`${name}/{id}`, `${name}@show`)
    r.get('{slug}/{id}', 'Pages@show')
    for (const name of names) {
      // A declared segment matches the request segment that decodes to it: `100%25` is `100%2525`.
      const path = `/${encodeURIComponent(name)}/7`
      assert.is(r.find('GET', path)?.route.handler, `${name}@show`, path)
    }
    // A sibling's prefix or extension is no sibling: it falls to the placeholder.
    for (const other of ['ite', 'itemss', 'abcd', 'ra', 'rates2', 'fiv', '100'])
      if (!names.includes(other))
        assert.is(r.find('GET', `/${other}/7`)?.route.handler, 'Pages@show', other)
  }
})

test('decodes a segment holding % wherever it comes, and never compares one raw', () => {
  const r = new Router()
  // A declared segment is compared with the decoded request segment: "100%25" decodes to "100%".
  r.get('rates/100%25', 'Rates@full')
  r.get('users/{id}/files/{name}', 'Files@show')
  assert.is(r.find('GET', '/rates/100%25'), undefined)
  assert.is(r.find('GET', '/rates/100%'), undefined)
  assert.equal(r.find('GET', '/users/7/files/a%20b')?.params, { id: '7', name: 'a b' })
  assert.equal(r.find('GET', '/users/7/%66iles/x')?.params, { id: '7', name: 'x' })
  assert.is(r.find('GET', '/users/7/files/%zz'), undefined)
})

test('answers no match at once for a method no route answers, in any case', () => {
  const r = router()
  assert.is(r.find('PUT', '/a/b'), undefined)
  assert.is(r.find('put', '/a/b'), undefined)
  assert.equal(r.find('post', '/a/b')?.route.handler, 'A@store')
  assert.equal(r.allowedMethodsFor('PUT', '/a/b'), ['GET', 'HEAD', 'POST'])
})

test.run()
