// The fuzz harness itself (test/fuzz/harness.ts), on a small app whose document it is handed: a
// route that keeps its document raises nothing, and each kind of lie is found and named: a 5xx,
// an undocumented status, a body off its schema, an operation that lets in a caller without
// credentials.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { json, type Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import type { OpenAPIObject } from 'openapi3-ts/oas30'
import { fuzz, fuzzSettings, type Finding } from './harness.js'

const ERROR = { $ref: '#/components/schemas/Error' }
const reply = (schema: object) => ({
  description: 'an answer',
  content: { 'application/json': { schema } },
})
const KEY = [{ key: [] }]

const DOCUMENT: OpenAPIObject = {
  openapi: '3.0.3',
  info: { title: 'harness', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        security: KEY,
        responses: {
          '200': reply({
            type: 'object',
            required: ['id'],
            properties: { id: { type: 'integer' } },
          }),
          '401': reply(ERROR),
          '404': reply(ERROR),
        },
      },
    },
    '/crash': {
      get: {
        parameters: [{ name: 'n', in: 'query', schema: { type: 'integer' } }],
        responses: { '200': reply({ type: 'object' }) },
      },
    },
    '/items': {
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string', minLength: 1 } },
              },
            },
          },
        },
        responses: { '201': reply({ type: 'object' }), '400': reply(ERROR) },
      },
    },
    '/shape': {
      get: {
        responses: { '200': reply({ type: 'object', properties: { id: { type: 'integer' } } }) },
      },
    },
    '/open': {
      get: { security: KEY, responses: { '200': reply({ type: 'object' }), '401': reply(ERROR) } },
    },
  },
  components: {
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-key' } },
    schemas: {
      Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
    },
  },
}

function app(): Kernel {
  const kernel = createTestKernel()
  const router = kernel.router
  router.get('things/{id}', (ctx) => {
    if (ctx.header('x-key') !== 'secret') return json({ error: 'unauthenticated' }, 401)
    const id = Number(ctx.params.id)
    return /^-?\d+$/.test(ctx.params.id ?? '') && Number.isSafeInteger(id)
      ? json({ id })
      : json({ error: 'not_found' }, 404)
  })
  router.get('crash', (ctx) => {
    if (ctx.query.n !== undefined) throw new Error('a handler that fails on any n')
    return json({})
  })
  router.post('items', async (ctx) => {
    const body = (await ctx.body()) as { name?: unknown } | undefined
    return typeof body?.name === 'string' && body.name !== ''
      ? json({ name: body.name }, 201)
      : json({ error: 'invalid' }, 422)
  })
  router.get('shape', () => json({ id: 'one' }))
  router.get('open', () => json({ open: true }))
  return kernel
}

const test = suite('fuzz harness')

test('finds each kind of lie an app tells about its document, and nothing else', async () => {
  const settings = { ...fuzzSettings({}), runs: 30 }
  const findings = await fuzz(
    { kernel: app(), document: DOCUMENT, secret: () => 'secret' },
    settings,
  )
  const found = (f: Finding) => `${f.operation}: ${f.problem.replace(/ \(.*$/, '')}`
  assert.equal([...new Set(findings.map(found))].sort(), [
    'GET /crash: 500, undocumented',
    'GET /open: 200 to a request with a forged credential',
    'GET /open: 200 to a request with no credential',
    'GET /shape: 200 body does not match its schema: /id must be integer',
    'POST /items: 422 is not documented',
  ])
})

test('refuses to fuzz an operation the document does not have, rather than pass on nothing', async () => {
  const settings = { ...fuzzSettings({ FW_FUZZ_OPS: 'GET /nowhere' }), runs: 1 }
  const run = fuzz({ kernel: app(), document: DOCUMENT, secret: () => 'secret' }, settings)
  await run.then(
    () => assert.unreachable('fuzzed nothing and passed'),
    (error: Error) =>
      assert.match(error.message, 'no such operation in the document: GET /nowhere'),
  )
})

test.run()
