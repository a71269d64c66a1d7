import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv } from 'ajv'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { runCli } from 'fw/testing'
import { ERROR_SCHEMA } from '../../../plugins/openapi/build.js'
import createShop, { root } from './fixture/app.js'

const test = suite<{ kernel: Kernel; tmp: string }>('openapi: the document')
const APP = { FW_APP: join(root, 'app.ts') }

test.before(async (context) => {
  context.kernel = await createShop()
  await context.kernel.boot()
  context.tmp = mkdtempSync(join(tmpdir(), 'fw-openapi-'))
})
test.after(async ({ kernel, tmp }) => {
  await kernel.close()
  rmSync(tmp, { recursive: true, force: true })
})

const any = { description: 'The response.' }
const apiKey = [{ apiKey: [] }]
/** fw's JSON error body, as every derived error documents it. */
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
})
/** What an operation behind the API key answers without a credential, or with one refused. */
const secured = {
  401: error('No valid credential.'),
  403: error(
    'No API key (and no web session with its CSRF token), or an access token that is not valid.',
  ),
}
/** The repository's package.json says MIT: the fixture app has none of its own. */
const license = { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' }

/** The shop's document with the defaults, written by hand once. */
const golden = {
  openapi: '3.0.3',
  info: { title: 'shop', version: '1.0.0', license },
  servers: [{ url: '/' }],
  paths: {
    '/api/status': {
      get: {
        operationId: 'status',
        summary: 'Says the shop is up!',
        description: 'Nothing else.',
        tags: ['Status'],
        responses: { default: any },
        security: [],
      },
    },
    '/api/v1/orders': {
      get: {
        operationId: 'v1.orders.index',
        summary: 'Lists orders.',
        description: 'Newest first, twenty to a page.\n\nCancelled orders are left out.',
        tags: ['Orders'],
        responses: { default: any, ...secured },
        security: apiKey,
      },
      post: {
        operationId: 'v1.orders.store',
        summary: 'Places an order.',
        tags: ['Orders'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['item'],
                properties: { item: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
              },
            },
          },
        },
        responses: {
          201: { description: 'The placed order.' },
          400: error('The body is not valid JSON.'),
          422: error('The body does not match the schema.'),
          ...secured,
        },
        security: [{ apiKey: [], bearerAuth: [] }],
      },
    },
    '/api/v1/orders/{id}': {
      get: {
        operationId: 'v1.orders.show',
        summary: 'Shows one order.',
        tags: ['Orders'],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } },
        ],
        responses: { default: any, ...secured, 404: error('Nothing has this id.') },
        security: apiKey,
      },
    },
  },
  components: {
    // What it says is checked against the bodies fw answers (the test below).
    schemas: { Error: ERROR_SCHEMA },
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'apiKey' },
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    },
  },
  tags: [
    { name: 'Orders', description: "The shop's orders." },
    { name: 'Status', description: 'The Status operations.' },
  ],
}

test('documents the routes under api/controllers: paths, parameters, comments, security, tags', async ({
  kernel,
}) => {
  const generated = await kernel.plugin('openapi').generate()
  assert.equal(JSON.parse(JSON.stringify(generated.document)), golden)
  assert.is(generated.dir, 'api/controllers')
  assert.is(generated.namespace, '')
  assert.equal([generated.paths, generated.operations], [3, 4])
})

test('passes a real OpenAPI validator', async ({ kernel }) => {
  const document = await kernel.plugin('openapi').document()
  await SwaggerParser.validate(structuredClone(document) as never)
})

test("the Error component describes the bodies of fw's errors, and only bodies with a code", async ({
  kernel,
}) => {
  const doc = await kernel.plugin('openapi').document()
  const schema = doc.components!.schemas!.Error! as { properties: Record<string, unknown> }
  const valid = new Ajv({ strict: false }).compile(schema)
  const answers = await Promise.all([
    kernel.inject('/api/v1/orders'),
    kernel.inject({ url: '/api/v1/nowhere', headers: { apikey: 'k', accept: 'application/json' } }),
    kernel.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: { apikey: 'k', 'content-type': 'application/json' },
      body: JSON.stringify({ count: 0 }),
    }),
  ])
  for (const res of answers) {
    assert.ok(res.status >= 400, `${res.status} ${res.body}`)
    assert.ok(valid(res.json()), `${res.status} ${res.body}: ${JSON.stringify(valid.errors)}`)
    // Every key of the body is documented, not only let through.
    for (const key of Object.keys(res.json<object>())) assert.ok(key in schema.properties, key)
  }
  assert.not.ok(valid({ message: 'no code' }))
  assert.not.ok(valid({ error: 'x', issues: [{ field: 'a' }] }))
})

test('gives each route its security: API key, API key and token, token, none', async ({
  kernel,
}) => {
  const doc = await kernel.plugin('openapi').document({ controllers: 'api/admin' })
  const admin = Object.values(doc.paths).map((item) => item.get?.security)
  assert.equal(admin, Array(5).fill([{ bearerAuth: [] }]), 'the unified middleware: a token')
  assert.equal(Object.keys(doc.components?.securitySchemes ?? {}), ['bearerAuth'])
  const all = await kernel.plugin('openapi').document()
  assert.equal(all.paths['/api/status']!.get!.security, [], 'no middleware: public, said so')
})

test('--namespace keeps the routes whose name starts with it', async ({ kernel }) => {
  const doc = await kernel.plugin('openapi').document({ namespace: 'v1.' })
  assert.equal(Object.keys(doc.paths), ['/api/v1/orders', '/api/v1/orders/{id}'])
})

test('--namespace=*, what the default run prints, keeps every route', async ({ kernel, tmp }) => {
  const doc = await kernel.plugin('openapi').document({ namespace: '*' })
  assert.equal(Object.keys(doc.paths), Object.keys(golden.paths))
  const output = join(tmp, 'star.json')
  const { code, stdout } = await runCli(['api:docs', '--namespace=*', `--output=${output}`], {
    env: APP,
  })
  assert.is(code, 0)
  assert.match(stdout, `Wrote 3 paths, 4 operations to ${output}`)
})

test('derives the namespace from a directory below controllers', async ({ kernel }) => {
  const dir = join(root, 'api', 'controllers', 'v1')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'orders.ts'), "export { OrdersController } from '../orders.js'\n")
  try {
    const generated = await kernel.plugin('openapi').generate({ controllers: 'api/controllers/v1' })
    assert.is(generated.namespace, 'v1.')
    assert.equal(Object.keys(generated.document.paths), ['/api/v1/orders', '/api/v1/orders/{id}'])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('--title, --api-version and --server set info and servers', async ({ kernel }) => {
  const doc = await kernel.plugin('openapi').document({
    title: 'Shop API',
    apiVersion: '2.1.0',
    servers: ['https://api.example.com', 'http://127.0.0.1:3000'],
  })
  assert.equal(doc.info, { title: 'Shop API', version: '2.1.0', license })
  assert.equal(doc.servers, [{ url: 'https://api.example.com' }, { url: 'http://127.0.0.1:3000' }])
})

test('--overrides deep-merges: objects by key, scalars and arrays replaced, generated paths kept', async ({
  kernel,
  tmp,
}) => {
  const file = join(tmp, 'overrides.json')
  writeFileSync(
    file,
    JSON.stringify({
      info: { description: 'The shop.' },
      paths: {
        '/api/status': { get: { summary: 'Is the shop up?', tags: ['Health'] } },
        '/api/v1/orders/{id}': {
          get: {
            responses: {
              200: {
                description: 'The order.',
                content: { 'application/json': { example: { id: 1 } } },
              },
            },
          },
        },
      },
      tags: [{ name: 'Health' }],
    }),
  )
  const doc = await kernel.plugin('openapi').document({ overrides: file })
  assert.equal(doc.info, { title: 'shop', version: '1.0.0', license, description: 'The shop.' })
  const status = doc.paths['/api/status']!.get!
  assert.is(status.summary, 'Is the shop up?')
  assert.is(status.description, 'Nothing else.', 'keys the override does not name are kept')
  assert.equal(status.tags, ['Health'], 'an array is replaced, not merged')
  assert.equal(Object.keys(doc.paths['/api/v1/orders/{id}']!.get!.responses).sort(), [
    '200',
    '401',
    '403',
    '404',
    'default',
  ])
  assert.equal(Object.keys(doc.paths), Object.keys(golden.paths), 'generated paths kept')
  assert.equal(doc.tags, [{ name: 'Health' }])
  await SwaggerParser.validate(structuredClone(doc) as never)
})

test('fw api:docs prints the two lines and the warning about the richer sibling', async ({
  tmp,
}) => {
  const output = join(tmp, 'cli', 'openapi.json')
  const { code, stdout, stderr } = await runCli(['api:docs', `--output=${output}`], { env: APP })
  assert.is(code, 0, stderr)
  assert.equal(stdout.trim().split('\n'), [
    'Scanned api/controllers (namespace *)',
    `Wrote 3 paths, 4 operations to ${output}`,
  ])
  assert.match(stderr, 'Warning: api/admin holds more operations (5) than api/controllers')
  assert.equal(JSON.parse(readFileSync(output, 'utf8')), golden)
})

test('fw api:docs --controllers gives no warning and documents that directory', async ({ tmp }) => {
  const output = join(tmp, 'admin.json')
  const { code, stdout, stderr } = await runCli(
    [
      'api:docs',
      '--controllers=api/admin',
      `--output=${output}`,
      '--title=Admin',
      '--api-version=3',
    ],
    { env: APP },
  )
  assert.is(code, 0, stderr)
  assert.match(stdout, 'Scanned api/admin (namespace *)')
  assert.match(stdout, `Wrote 5 paths, 5 operations to ${output}`)
  assert.is(stderr, '')
  const doc = JSON.parse(readFileSync(output, 'utf8')) as { info: unknown }
  assert.equal(doc.info, { title: 'Admin', version: '3', license })
})

test('fw api:docs exits 1 with a clear message for an unknown directory', async () => {
  const { code, stdout, stderr } = await runCli(['api:docs', '--controllers=nowhere'], { env: APP })
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.match(stderr, 'The controllers directory nowhere does not exist.')
  assert.not.match(stderr, '    at ')
})

test('fw api:docs exits 1 for a missing, unparsable or non-object overrides file', async ({
  tmp,
}) => {
  const broken = join(tmp, 'broken.json')
  writeFileSync(broken, '{"info": ')
  const list = join(tmp, 'list.json')
  writeFileSync(list, '[1, 2]')
  for (const [file, reason] of [
    [join(tmp, 'absent.json'), 'it does not exist'],
    [broken, 'it is not valid JSON'],
    [list, 'it is not a JSON object'],
  ] as const) {
    const { code, stderr } = await runCli(
      ['api:docs', `--overrides=${file}`, `--output=${join(tmp, 'x.json')}`],
      {
        env: APP,
      },
    )
    assert.is(code, 1, file)
    assert.match(stderr, `The overrides file ${file} cannot be used: ${reason}`)
  }
})

test('fw api:docs exits 1 when it cannot write the output', async ({ tmp }) => {
  const taken = join(tmp, 'a-directory')
  mkdirSync(join(taken, 'inside'), { recursive: true })
  const { code, stderr } = await runCli(['api:docs', `--output=${taken}`], { env: APP })
  assert.is(code, 1)
  assert.match(stderr, `Cannot write the API document to ${taken}`)
})

test.run()
