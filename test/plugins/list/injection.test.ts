// Injection: random strings, quotes, comments, unicode and SQL fragments in every parameter of
// both endpoints. Whatever comes in, the answer is a 200 or a clean error envelope, nothing
// outside the whitelist comes back, and every statement run is made of whitelisted identifiers,
// fixed keywords and placeholders, with every value bound.
import fc from 'fast-check'
import * as qs from 'qs-esm'
import * as assert from 'uvu/assert'
import { OPERATORS } from 'fw/plugins/list'
import { eventsOf } from 'fw/testing'
import { ALLOWED_IDENTIFIERS, ROWS, shopSuite } from './fixtures.js'

const test = shopSuite('list injection')

/** The only words a statement may hold outside quoted identifiers. */
const KEYWORDS = new Set(
  'SELECT FROM WHERE AND OR ORDER BY ASC DESC LIMIT OFFSET LEFT JOIN AS ON IS NOT NULL IN ILIKE LIKE ESCAPE count text FALSE'.split(
    ' ',
  ),
)
/** Keys a row may have: the whitelisted fields without prefixes. */
const OUTPUT_KEYS = new Set(
  [...ALLOWED_IDENTIFIERS].filter((k) => k !== 'products' && k !== 'categories'),
)

/** Checks one statement (or debug fragment); answers what is wrong, or undefined. */
function unsafe(sql: string): string | undefined {
  const identifiers = [...sql.matchAll(/"([^"]*)"/g)].map((m) => m[1]!)
  const stranger = identifiers.find((i) => !ALLOWED_IDENTIFIERS.has(i))
  if (stranger !== undefined) return `identifier "${stranger}"`
  // The one literal a statement may hold: the escape character of a search pattern.
  const rest = sql.replace(/"[^"]*"/g, ' ').replaceAll("ESCAPE '\\'", 'ESCAPE')
  if (!/^[A-Za-z(),.=<>!*?:\s]*$/.test(rest)) return `characters in ${JSON.stringify(rest)}`
  const word = rest.match(/[A-Za-z]+/g)?.find((w) => !KEYWORDS.has(w))
  return word === undefined ? undefined : `word ${word}`
}

const nasty = fc.constantFrom(
  "'",
  '"',
  '`',
  ';',
  '--',
  '/*',
  '*/',
  '\\',
  '%',
  '_',
  '\u0000',
  '$1',
  '?',
  '??',
  ':name',
  "' OR '1'='1",
  '"; DROP TABLE products; --',
  ') OR (1=1',
  'name) --',
  'name"--',
  'users.password_hash',
  'categories.code',
  'cost',
  'code',
  'password_hash',
  'pg_sleep(1)',
  '(select password_hash from users)',
  'ПРИВЕТ',
  '😀',
  'ｎａｍｅ',
  'NULL',
  'true',
  'name\n',
  ' name',
  'id,name',
  '__proto__',
  'constructor',
  'toString',
  '1e308',
  '-0',
  '[',
  '{',
  '}',
)
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  nasty,
  fc.array(nasty, { maxLength: 4 }).map((parts) => parts.join('')),
)
const fieldName = fc.oneof(
  fc.constantFrom(
    ...OUTPUT_KEYS,
    'products.name',
    'categories.title',
    'products.cost',
    'ID',
    'Name',
  ),
  text,
)
const op = fc.oneof(fc.constantFrom(...OPERATORS, 'like', 'not in', 'REGEXP', '~', '= ANY'), text)
const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null))
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 4 }),
  fc.dictionary(text, scalar, { maxKeys: 2 }),
)
const condition = fc.record({ field: fieldName, op, value }, { requiredKeys: [] })
const entry = fc.oneof(
  condition,
  fc.record({ or: fc.array(condition, { maxLength: 3 }) }),
  fc.anything({ maxDepth: 2 }),
)
const orderList = fc
  .array(fc.tuple(fc.boolean(), fieldName), { maxLength: 4 })
  .map((keys) => keys.map(([desc, f]) => `${desc ? '-' : ''}${f}`).join(','))
const numberish = fc.oneof(text, fc.integer().map(String), fc.constant(undefined))

const listParams = fc.record(
  {
    filter: fc.oneof(fc.array(entry, { maxLength: 4 }), text),
    order: fc.oneof(orderList, text),
    fields: fc.oneof(
      fc.array(fieldName, { maxLength: 4 }).map((f) => f.join(',')),
      fc.array(fieldName, { maxLength: 4 }),
      text,
    ),
    search: fc.oneof(
      text,
      fc.dictionary(fieldName, text, { maxKeys: 3 }),
      fc.array(text, { maxLength: 3 }),
    ),
    page: numberish,
    per_page: numberish,
    after: fc.option(text, { nil: undefined }),
  },
  { requiredKeys: [] },
)

const datatableParams = fc.record(
  {
    draw: numberish,
    start: numberish,
    length: numberish,
    columns: fc.array(fc.record({ data: fieldName, orderable: fc.constantFrom('true', 'false') }), {
      maxLength: 5,
    }),
    order: fc.array(
      fc.record({
        column: fc.oneof(fc.nat(6).map(String), text),
        dir: fc.oneof(fc.constantFrom('asc', 'desc'), text),
      }),
      { maxLength: 3 },
    ),
    search: fc.record({ value: text }),
    filter: fc.oneof(fc.array(entry, { maxLength: 3 }), text),
  },
  { requiredKeys: [] },
)

/** A query string: JSON for structured values, or qs brackets (`filter[0][field]=…`). */
function encode(params: Record<string, unknown>, brackets: boolean): string {
  if (brackets) return qs.stringify(params)
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue
    q.append(k, typeof v === 'string' ? v : JSON.stringify(v))
  }
  return q.toString()
}

const request = fc.oneof(
  fc.record({ path: fc.constant('/products'), params: listParams, brackets: fc.boolean() }),
  fc.record({
    path: fc.constant('/products/datatable'),
    params: datatableParams,
    brackets: fc.constant(true),
  }),
)

test('answers 200 or a clean envelope, running only whitelisted identifiers and bound values', async ({
  kernel,
}) => {
  await fc.assert(
    fc.asyncProperty(request, fc.boolean(), async ({ path, params, brackets }, xhr) => {
      const url = `${path}?${encode(params as Record<string, unknown>, brackets)}`
      const res = await kernel.inject({
        url,
        headers: xhr ? { 'x-requested-with': 'XMLHttpRequest' } : { accept: 'application/json' },
      })
      const body = res.json<Record<string, unknown>>()
      const where = `${res.status} ${url}\n${res.body.slice(0, 400)}`
      if (res.status === 200) {
        for (const row of body.data as Record<string, unknown>[])
          for (const key of Object.keys(row))
            assert.ok(OUTPUT_KEYS.has(key), `row key ${key}: ${where}`)
        if (path === '/products')
          for (const key of body.fields as string[]) assert.ok(OUTPUT_KEYS.has(key), where)
      } else if (body.error === 'invalid_input') {
        // A NUL somewhere in what the engine reads: refused before any statement.
        assert.is(res.status, 400, where)
        assert.ok(/%00|u0000/.test(url), where)
        assert.equal(eventsOf(res.events, 'query.executed'), [], where)
        return
      } else {
        assert.is(res.status, 400, where)
        assert.match(String(body.error), /^Database query failed: /, where)
        assert.equal([body.data, body.pagination], [[], null], where)
        for (const fragment of Object.values(body.debug as Record<string, string>))
          assert.is(unsafe(fragment), undefined, `debug ${fragment}: ${where}`)
      }
      assert.not.match(res.body, /HASH-OF|SECRET-/, where)
      const statements = eventsOf(res.events, 'query.executed')
      assert.ok(statements.length >= 1, where)
      for (const { data } of statements) {
        assert.is(unsafe(data.sql), undefined, `${data.sql}: ${where}`)
        assert.is(data.sql.split('?').length - 1, data.params.length, `${data.sql}: ${where}`)
      }
    }),
    { numRuns: 200 },
  )
  // Nothing was changed by anything sent.
  const em = kernel.plugin('database').em()
  assert.equal(await em.execute('select count(*)::int as n from products'), [{ n: ROWS.length }])
  assert.equal(await em.execute('select count(*)::int as n from users'), [{ n: 2 }])
})

test('never answers a column outside the whitelist, whatever the parameter asks', async ({
  kernel,
}) => {
  for (const attempt of [
    'cost',
    'products.cost',
    'categories.code',
    'code',
    'users.password_hash',
    'password_hash',
  ]) {
    for (const params of [
      { fields: attempt },
      { fields: `name,${attempt}` },
      { order: attempt },
      { filter: JSON.stringify([{ field: attempt, op: 'IS NOT NULL' }]) },
      { search: JSON.stringify({ [attempt]: 'a' }) },
    ] as Record<string, string>[]) {
      const res = await kernel.inject({
        url: `/products?${new URLSearchParams(params)}`,
        headers: { accept: 'application/json' },
      })
      assert.is(res.status, 200)
      for (const { data } of eventsOf(res.events, 'query.executed'))
        assert.not.match(
          data.sql,
          /cost|code|password|users/,
          `${attempt} ${JSON.stringify(params)}`,
        )
    }
  }
})

test.run()
