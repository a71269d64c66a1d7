import fc from 'fast-check'
import * as qs from 'qs-esm'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestKernel } from 'fw/testing'
import { parseQs } from '../../kernel/qs.js'

// Query strings and form bodies parse as qs parses them; flat ones (`a=1&b=2`) without loading
// or running qs. Compared with qs itself on generated strings, so the shortcut cannot drift.

const test = suite('query strings')
const OPTIONS = { depth: 5, arrayLimit: 100, parameterLimit: 1000 } as const

test('flat strings give what qs gives', () => {
  for (const text of [
    'queries=20',
    'page=2&per_page=20',
    'a&b=&c=x.y~z-_',
    '0=a&1=b',
    'a=1&a=2',
    'toString=1&x=2',
    '__proto__=1',
    'a=b=c',
    'a=1&&b=2',
    'a=1&',
    '&a=1',
    '=1',
    'a[b]=1',
    'a.b=1',
    'a=%41&b=x+y',
  ])
    assert.equal(parseQs(text, OPTIONS), qs.parse(text, OPTIONS), text)
})

test('any string over a hostile alphabet: the same as qs', () => {
  const text = fc
    .array(
      fc.constantFrom('a', 'b', '0', '=', '&', '[', ']', '%', '2', '+', '.', '_', 'toString'),
      {
        maxLength: 24,
      },
    )
    .map((parts) => parts.join(''))
  fc.assert(
    fc.property(text, (t) => {
      assert.equal(parseQs(t, OPTIONS), qs.parse(t, OPTIONS), t)
    }),
    { numRuns: 3000 },
  )
})

test('more parameters than the limit: as qs (the extra ones left out)', () => {
  const text = Array.from({ length: 12 }, (_, i) => `k${i}=${i}`).join('&')
  const limited = { ...OPTIONS, parameterLimit: 10 }
  assert.equal(parseQs(text, limited), qs.parse(text, limited))
  assert.is(Object.keys(parseQs(text, limited) as object).length, 10)
})

test('other qs options are left to qs', () => {
  const options = { ...OPTIONS, allowDots: true }
  assert.equal(parseQs('a.b=1', options), { a: { b: '1' } })
})

test('ctx.query through a request', async () => {
  const kernel = createTestKernel()
  kernel.router.get('q', (ctx) => ctx.query)
  assert.equal((await kernel.inject('/q?queries=20&x')).json(), { queries: '20', x: '' })
  assert.equal((await kernel.inject('/q?a=1&a=2')).json(), { a: ['1', '2'] })
  assert.equal((await kernel.inject('/q?f[x]=1')).json(), { f: { x: '1' } })
})

test.run()
