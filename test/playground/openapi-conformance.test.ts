// The playground's API document, judged from outside: Redocly's recommended rules find nothing in
// it, and every operation's live answers, errors included, match the response it documents for
// their status (checked with ajv against the document's own schemas).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { documentSchemas, redoclyProblems } from '../fixtures/document-schemas.js'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { bootApp, playground, tokenOf } from '../fixtures/booted-app.js'

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>
  parameters?: { name: string; in: string }[]
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, unknown> }
}

const test = suite<{ db: TestDatabase; kernel: Kernel; doc: Document; token: string }>(
  'playground: API document conformance',
)

bootApp(test, playground({ FW_APP_KEY: 'base64:conformance-test-key' }))

test.before(async (context) => {
  context.doc = (await context.kernel.plugin('openapi').document()) as unknown as Document
  context.token = await tokenOf(context.kernel, 'editor')
})

test("Redocly's recommended rules find no error and no warning", async ({ doc }) => {
  assert.equal(await redoclyProblems(doc), [])
})

test('the document describes servers, the license, tags, list parameters and typed rows', ({
  doc,
}) => {
  const full = doc as unknown as {
    servers: { url: string }[]
    info: { license?: { name: string } }
    tags: { name: string; description?: string }[]
  }
  assert.equal(full.servers, [{ url: '/' }])
  assert.is(full.info.license?.name, 'MIT')
  for (const tag of full.tags) assert.ok(tag.description, tag.name)
  const index = doc.paths['/api/v1/products']!.get!
  assert.equal(
    index.parameters?.map((p) => `${p.in}:${p.name}`),
    [
      'query:fields',
      'query:order',
      'query:filter',
      'query:search',
      'query:page',
      'query:per_page',
      'query:after',
    ],
  )
  const page = index.responses['200']!.content!['application/json']!.schema as {
    properties: { data: { items: { properties: Record<string, { type?: string }> } } }
  }
  assert.is(page.properties.data.items.properties.name?.type, 'string')
  assert.is(page.properties.data.items.properties.price?.type, 'number')
})

/** One live request and the documented operation and status it must match. */
interface Case {
  path: string
  method: string
  url: string
  headers?: Record<string, string>
  body?: unknown
  status: number
}

const KEY = { apikey: 'demo-api-key' }

function cases(token: string): Case[] {
  const bearer = { authorization: `Bearer ${token}` }
  const product = { name: 'Conformance lamp', sku: 'CONF-1', price: 9.5, stock: 2 }
  return [
    { path: '/api/v1/me', method: 'get', url: '/api/v1/me', headers: bearer, status: 200 },
    { path: '/api/v1/me', method: 'get', url: '/api/v1/me', status: 401 },
    { path: '/api/v1/products', method: 'get', url: '/api/v1/products', headers: KEY, status: 200 },
    {
      path: '/api/v1/products',
      method: 'get',
      url: '/api/v1/products?fields=id,name,tags,title&per_page=3&order=-price',
      headers: KEY,
      status: 200,
    },
    { path: '/api/v1/products', method: 'get', url: '/api/v1/products', status: 403 },
    {
      path: '/api/v1/products',
      method: 'get',
      url: '/api/v1/products',
      headers: { apikey: 'wrong' },
      status: 401,
    },
    {
      path: '/api/v1/products',
      method: 'post',
      url: '/api/v1/products',
      headers: KEY,
      body: product,
      status: 201,
    },
    {
      path: '/api/v1/products',
      method: 'post',
      url: '/api/v1/products',
      headers: KEY,
      body: { name: '' },
      status: 422,
    },
    {
      path: '/api/v1/products',
      method: 'post',
      url: '/api/v1/products',
      headers: { ...KEY, 'content-type': 'application/json' },
      body: '{"name":',
      status: 400,
    },
    {
      path: '/api/v1/products',
      method: 'post',
      url: '/api/v1/products',
      body: product,
      status: 403,
    },
    {
      path: '/api/v1/products/datatable',
      method: 'get',
      url: '/api/v1/products/datatable?draw=3&start=0&length=5&columns[0][data]=id&columns[1][data]=name&order[0][column]=1&order[0][dir]=asc&search[value]=lamp',
      headers: KEY,
      status: 200,
    },
    {
      path: '/api/v1/products/datatable',
      method: 'get',
      url: '/api/v1/products/datatable',
      status: 403,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'get',
      url: '/api/v1/products/1',
      headers: KEY,
      status: 200,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'get',
      url: '/api/v1/products/987654321',
      headers: KEY,
      status: 404,
    },
    { path: '/api/v1/products/{id}', method: 'get', url: '/api/v1/products/1', status: 403 },
    {
      path: '/api/v1/products/{id}',
      method: 'patch',
      url: '/api/v1/products/2',
      headers: KEY,
      body: { stock: 7 },
      status: 200,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'patch',
      url: '/api/v1/products/2',
      headers: KEY,
      body: { price: -1 },
      status: 422,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'patch',
      url: '/api/v1/products/987654321',
      headers: KEY,
      body: { stock: 1 },
      status: 404,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'delete',
      url: '/api/v1/products/3',
      headers: KEY,
      status: 204,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'delete',
      url: '/api/v1/products/987654321',
      headers: KEY,
      status: 404,
    },
    {
      path: '/api/v1/products/{id}',
      method: 'delete',
      url: '/api/v1/products/4',
      headers: bearer,
      status: 403,
    },
    {
      path: '/api/v2/products',
      method: 'get',
      url: '/api/v2/products?page=2&per_page=5',
      headers: KEY,
      status: 200,
    },
    { path: '/api/v2/products', method: 'get', url: '/api/v2/products', status: 403 },
  ]
}

test('every operation answers what the document says, errors included', async ({
  kernel,
  doc,
  token,
}) => {
  const check = documentSchemas(doc)
  const covered = new Set<string>()
  for (const c of cases(token)) {
    const label = `${c.method.toUpperCase()} ${c.url} → ${c.status}`
    const res = await kernel.inject({
      method: c.method.toUpperCase(),
      url: c.url,
      headers: { accept: 'application/json', ...c.headers },
      ...(c.body === undefined ? {} : { body: c.body as never }),
    })
    assert.is(res.status, c.status, `${label}: ${res.body.slice(0, 200)}`)
    const operation = doc.paths[c.path]?.[c.method]
    assert.ok(operation, `${c.method} ${c.path} is documented`)
    const response = operation.responses[String(c.status)]
    assert.ok(response, `${label}: the status is documented`)
    covered.add(`${c.method} ${c.path}`)
    const schema = response.content?.['application/json']?.schema
    if (res.body === '') {
      assert.is(schema, undefined, `${label}: documented without a body`)
      continue
    }
    assert.ok(schema, `${label}: the body's schema is documented`)
    const { valid, errors } = check(schema, res.json())
    assert.ok(valid, `${label}: ${errors}\n${res.body.slice(0, 300)}`)
  }
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method} ${path}`),
  )
  assert.equal([...covered].sort(), documented.sort(), 'every operation is exercised')
})

test.run()
