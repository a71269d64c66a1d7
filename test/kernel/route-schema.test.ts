import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, silentLogger, type FwError, type JsonSchema, type Kernel } from 'fw'

const test = suite('route schema')

const product: JsonSchema = {
  type: 'object',
  required: ['name', 'price', 'stock'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    price: { type: 'number', minimum: 0 },
    stock: { type: 'integer', minimum: 0 },
    active: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    notes: { type: 'string', nullable: true },
    email: { type: 'string', format: 'email', example: 'ada@example.com' },
    code: { type: 'string', pattern: '^[A-Z]{3}$', 'x-pattern-message': 'must be three capitals' },
  },
}

function app() {
  const kernel = createKernel({ logger: silentLogger })
  kernel.router
    .post('products', async (ctx) => ({ got: await ctx.body() }))
    .schema({ body: product, responses: { 201: { description: 'Created.' } } })
  return kernel
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }

/** POST /products with `body` as it is sent (JSON unless `headers` say otherwise). */
function postProduct(
  kernel: Kernel,
  body?: string,
  headers: Record<string, string> = JSON_HEADERS,
) {
  return kernel.inject({ method: 'POST', url: '/products', headers, body })
}

test('passes a body that matches to the handler untouched', async () => {
  const kernel = app()
  const body = { name: 'Lamp', price: 12.5, stock: 3, notes: null, extra: 'kept' }
  const res = await postProduct(kernel, JSON.stringify(body))
  assert.is(res.status, 200)
  assert.equal(res.json(), { got: body })
  await kernel.close()
})

test('answers 422 naming every wrong field, with the validator error collection', async () => {
  const kernel = app()
  const res = await postProduct(
    kernel,
    JSON.stringify({ name: ' ', price: '12', tags: ['a', 1], email: 'nope' }),
  )
  assert.is(res.status, 422)
  const body = res.json<{
    error: string
    errors: Record<string, string[]>
    issues: { field: string; keyword: string }[]
  }>()
  assert.is(body.error, 'invalid_body')
  assert.equal(Object.keys(body.errors).sort(), ['email', 'name', 'price', 'stock', 'tags.1'])
  assert.equal(body.errors.stock, ['The stock field is required.'])
  assert.equal(body.errors.price, ['The price must be number.'])
  assert.ok(body.issues.some((i) => i.field === 'tags.1' && i.keyword === 'type'))
  assert.ok(body.issues.some((i) => i.field === 'email' && i.keyword === 'format'))
  const raised = res.events.find((e) => e.type === 'exception.raised')
  assert.is((raised?.data as { code?: string }).code, 'FW_ERR_HTTP_BODY_INVALID')
  await kernel.close()
})

test('a pattern fails in words (x-pattern-message, else a generic phrase), never the expression', async () => {
  const kernel = app()
  const res = await postProduct(
    kernel,
    JSON.stringify({ name: ' ', price: 1, stock: 1, code: 'eur' }),
  )
  assert.is(res.status, 422)
  const body = res.json<{
    errors: Record<string, string[]>
    issues: { field: string; message: string; params: { pattern?: string } }[]
  }>()
  assert.equal(body.errors, {
    name: ['The name is not in the expected format.'],
    code: ['The code must be three capitals.'],
  })
  assert.equal(
    body.issues.map((i) => i.message),
    ['is not in the expected format', 'must be three capitals'],
  )
  assert.not.match(res.body, 'must match pattern')
  // Programs still get the expression.
  assert.is(body.issues.find((i) => i.field === 'code')?.params.pattern, '^[A-Z]{3}$')
  await kernel.close()
})

test('answers 422, never 500, to a body that is not an object or not JSON at all', async () => {
  const kernel = app()
  const array = await postProduct(kernel, '[1,2]')
  assert.is(array.status, 422)
  assert.equal(Object.keys(array.json<{ errors: object }>().errors), ['body'])
  const none = await postProduct(kernel)
  assert.is(none.status, 422)
  const broken = await postProduct(kernel, '{"name":')
  assert.is(broken.status, 400)
  await kernel.close()
})

test('coerces a form body to the schema types, and refuses what does not coerce', async () => {
  const kernel = app()
  const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
  const ok = await postProduct(kernel, 'name=Chair&price=12.50&stock=4&active=false&tags[]=a', form)
  assert.is(ok.status, 200)
  assert.equal(ok.json(), {
    got: { name: 'Chair', price: 12.5, stock: 4, active: false, tags: ['a'] },
  })
  const bad = await postProduct(kernel, 'name=Chair&price=cheap&stock=1.5', form)
  assert.is(bad.status, 422)
  assert.equal(Object.keys(bad.json<{ errors: object }>().errors).sort(), ['price', 'stock'])
  await kernel.close()
})

test('fails listen naming the route when its schema is not valid; boot alone does not compile it', async () => {
  const kernel = createKernel({ logger: silentLogger })
  kernel.router.post('x', () => 'x').schema({ body: { type: 'object', propertys: {} } })
  // A command that only boots (`fw route:list`, `fw api:docs`) never compiles a schema.
  await kernel.boot()
  try {
    await kernel.listen(0, '127.0.0.1')
    assert.unreachable('listen accepted a broken schema')
  } catch (error) {
    assert.is((error as FwError).code, 'FW_ERR_ROUTER_INVALID_SCHEMA')
    assert.match((error as FwError).message, "route 'x'")
    assert.match((error as FwError).message, 'propertys')
  }
  await kernel.close()
})

test("in-process, a broken schema compiles on the route's first request: a 500 that names nothing", async () => {
  const kernel = createKernel({ logger: silentLogger, config: { development: false } })
  kernel.router.post('x', () => 'x').schema({ body: { type: 'object', propertys: {} } })
  const res = await kernel.inject({ method: 'POST', url: '/x', body: { a: 1 } })
  assert.is(res.status, 500)
  assert.not.match(res.body, 'propertys')
  const raised = res.events.find((e) => e.type === 'exception.raised')
  assert.is((raised?.data as { code?: string }).code, 'FW_ERR_ROUTER_INVALID_SCHEMA')
  await kernel.close()
})

test('checks a missing bound record first: 404 whatever the body', async () => {
  const kernel = createKernel({ logger: silentLogger })
  kernel.binding('Thing', async (id) => (id === '1' ? { id } : undefined))
  kernel.router
    .patch('things/{thing}', () => 'ok')
    .bind('thing', 'Thing')
    .schema({ body: { type: 'object', required: ['x'] } })
  const patchEmpty = (url: string) =>
    kernel.inject({ method: 'PATCH', url, headers: JSON_HEADERS, body: '{}' })
  assert.is((await patchEmpty('/things/2')).status, 404, 'missing')
  assert.is((await patchEmpty('/things/1')).status, 422, 'found, the body invalid')
  await kernel.close()
})

test.run()
