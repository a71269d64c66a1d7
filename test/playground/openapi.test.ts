import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv } from 'ajv'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { defaultOutput } from 'fw/plugins/openapi'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger, runCli } from 'fw/testing'
import createApp, { root } from '../../playground/app.js'

const run = promisify(execFile)

/** Validates with swagger-parser, its failure as a plain Error (uvu cannot print its own). */
async function validate(doc: unknown): Promise<void> {
  try {
    await SwaggerParser.validate(structuredClone(doc) as never)
  } catch (error) {
    throw new Error(`not a valid OpenAPI document: ${(error as Error).message}`, { cause: error })
  }
}
const test = suite<{ db: TestDatabase; kernel: Kernel; url: string; tmp: string }>(
  'playground: API document and client',
)
const repo = join(root, '..')

/** The repository's tsc, and the flags a user's strict ESM project compiles a generated client with. */
const TSC = join(repo, 'node_modules', '.bin', 'tsc')
const STRICT_TSC_FLAGS = [
  '--strict',
  '--noEmitOnError',
  '--target',
  'es2022',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--types',
  'node',
  '--typeRoots',
  join(repo, 'node_modules', '@types'),
  '--skipLibCheck',
]

test.before(async (context) => {
  // Started without a document: the openapi plugin writes it when the app starts listening.
  rmSync(defaultOutput(root), { force: true })
  context.db = await createTestDatabase()
  context.kernel = createApp({
    env: { DATABASE_URL: context.db.url },
    logger: createMemoryLogger(),
  })
  await context.kernel.boot()
  await context.kernel.plugin('database').prepare()
  context.url = (await context.kernel.listen(0, '127.0.0.1')).url
  context.tmp = mkdtempSync(join(tmpdir(), 'fw-api-client-'))
})
test.after(async ({ kernel, db, tmp }) => {
  await kernel.close()
  await db.drop()
  rmSync(tmp, { recursive: true, force: true })
})

test('serves GET /api/openapi.json, written on start, a valid OpenAPI 3.0.3 document', async ({
  url,
}) => {
  assert.ok(existsSync(defaultOutput(root)), 'written when the playground started')
  const res = await fetch(`${url}/api/openapi.json`)
  assert.is(res.status, 200)
  const doc = (await res.json()) as {
    openapi: string
    paths: Record<string, Record<string, { operationId: string; security?: unknown }>>
  }
  assert.is(doc.openapi, '3.0.3')
  await validate(doc)
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
  )
  assert.equal(operations, [
    'GET /api/v1/me v1.me',
    'GET /api/v1/products v1.products.index',
    'POST /api/v1/products v1.products.store',
    'GET /api/v1/products/datatable v1.products.datatable',
    'GET /api/v1/products/{id} v1.products.show',
    'PATCH /api/v1/products/{id} v1.products.update',
    'DELETE /api/v1/products/{id} v1.products.destroy',
    'GET /api/v2/products v2.products.index',
  ])
  assert.equal(doc.paths['/api/v1/products/{id}']!.get!.security, [{ apiKey: [] }])
  assert.equal(doc.paths['/api/v1/me']!.get!.security, [{ bearerAuth: [] }])
})

test('the store schema holds the 422 rules of playground/README.md', async ({ kernel }) => {
  const doc = await kernel.plugin('openapi').document()
  const body = doc.paths['/api/v1/products']!.post!.requestBody as {
    content: {
      'application/json': {
        schema: { required: string[]; properties: Record<string, Record<string, unknown>> }
      }
    }
  }
  const schema = body.content['application/json'].schema
  assert.equal(schema.required, ['name', 'sku', 'price', 'stock'])
  assert.equal([schema.properties.name!.minLength, schema.properties.name!.maxLength], [1, 200])
  assert.is(schema.properties.price!.minimum, 0)
  assert.equal([schema.properties.stock!.type, schema.properties.stock!.minimum], ['integer', 0])
})

test('fw api:docs on the playground writes the same document', async ({ tmp }) => {
  const output = join(tmp, 'openapi.json')
  const { code, stdout } = await runCli(['api:docs', `--output=${output}`], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.is(code, 0)
  assert.equal(stdout.trim().split('\n'), [
    'Scanned api/controllers (namespace *)',
    `Wrote 5 paths, 8 operations to ${output}`,
  ])
  assert.equal(
    JSON.parse(readFileSync(output, 'utf8')),
    JSON.parse(readFileSync(defaultOutput(root), 'utf8')),
  )
})

test('fw api:docs from the built CLI, the app run compiled, writes the same document', async ({
  tmp,
}) => {
  // `npm test` builds dist/ first; the CLI then runs the compiled playground, and the scan must
  // find its handlers in the compiled modules the app loaded.
  const bin = join(repo, 'dist', 'cli', 'bin.js')
  assert.ok(existsSync(bin), 'dist/ is built (npm run build)')
  const output = join(tmp, 'compiled.json')
  const result = await run(process.execPath, [bin, 'api:docs', `--output=${output}`], {
    cwd: repo,
    env: { ...process.env, DATABASE_URL: 'pglite://memory' },
  })
  assert.match(result.stdout, `Wrote 5 paths, 8 operations to ${output}`)
  assert.equal(
    JSON.parse(readFileSync(output, 'utf8')),
    JSON.parse(readFileSync(defaultOutput(root), 'utf8')),
  )
})

test('fw route:list shows the products resource as declared: {id}, PATCH only', async () => {
  const { code, stdout } = await runCli(['route:list', '--json'], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.is(code, 0)
  const rows = (JSON.parse(stdout) as { methods: string[]; path: string; name: string | null }[])
    .filter((r) => r.path.startsWith('api/v1/products'))
    .map((r) => `${r.methods.join('|')} ${r.path} ${r.name}`)
  assert.equal(rows, [
    'GET|HEAD api/v1/products v1.products.index',
    'POST api/v1/products v1.products.store',
    'GET|HEAD api/v1/products/datatable v1.products.datatable',
    'GET|HEAD api/v1/products/{id} v1.products.show',
    'PATCH api/v1/products/{id} v1.products.update',
    'DELETE api/v1/products/{id} v1.products.destroy',
  ])
})

const program = `import { ApiError, configure, v1ProductsShow, v1ProductsStore, v1ProductsUpdate, v2ProductsIndex } from './api-client.js'

configure({ baseUrl: process.env.BASE_URL, headers: { apikey: 'demo-api-key' } })
const one = await v1ProductsShow({ id: 3 })
const sku: string = one.sku
const created = await v1ProductsStore({ body: { name: 'Typed lamp', sku: 'TYPED-1', price: 9.5, stock: 2 } })
const id: number = created.id
const changed = await v1ProductsUpdate({ id, body: { price: 10 } })
const page = await v2ProductsIndex({ query: { page: 2, per_page: 5 } })
let refused = 0
try {
  await v1ProductsStore({ body: { name: '', sku: 'TYPED-2', price: -1, stock: 0 } })
} catch (error) {
  if (error instanceof ApiError) refused = error.status
}
console.log(JSON.stringify({ sku, created: created.name, price: changed.price, page: page.page, first: page.data?.[0]?.id, refused }))
`

test('fw create:api-client writes a typed client that compiles under --strict and calls the playground', async ({
  url,
  tmp,
}) => {
  const { code, stdout, stderr } = await runCli(['create:api-client', `--output=${tmp}`], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.is(code, 0, stderr)
  assert.match(stdout, `Wrote 8 operations to ${join(tmp, 'api-client.js')}`)
  writeFileSync(join(tmp, 'package.json'), '{"type":"module"}')
  writeFileSync(join(tmp, 'main.ts'), program)
  await run(TSC, [...STRICT_TSC_FLAGS, join(tmp, 'main.ts')], { cwd: tmp })
  const result = await run(process.execPath, [join(tmp, 'main.js')], {
    cwd: tmp,
    env: { ...process.env, BASE_URL: url },
  })
  assert.equal(JSON.parse(result.stdout), {
    sku: 'PG-0003',
    created: 'Typed lamp',
    price: 10,
    page: 2,
    first: 6,
    refused: 422,
  })

  // The declarations are strict: a missing path parameter or a wrong body type does not compile.
  writeFileSync(
    join(tmp, 'wrong.ts'),
    "import { v1ProductsShow, v1ProductsStore } from './api-client.js'\nawait v1ProductsShow({})\nawait v1ProductsStore({ body: { name: 1, sku: 'x', price: 1, stock: 1 } })\n",
  )
  const wrong = await run(TSC, [...STRICT_TSC_FLAGS, '--noEmit', join(tmp, 'wrong.ts')], {
    cwd: tmp,
  }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  )
  assert.match(wrong, "Property 'id' is missing")
  assert.match(wrong, "Type 'number' is not assignable to type 'string'")
})

const lists = `import { configure, v1ProductsDatatable, v1ProductsIndex } from './api-client.js'

/** True when T is \`any\`: a field the document left untyped. */
type IsAny<T> = 0 extends 1 & T ? true : false
configure({ baseUrl: process.env.BASE_URL, headers: { apikey: 'demo-api-key' } })
const columns = [{ data: 'id' }, { data: 'name', orderable: true, searchable: true }, { data: 'title' }]
const table = await v1ProductsDatatable({
  query: { draw: 3, length: 4, order: [{ column: 0, dir: 'asc' }], columns, search: { value: '' } },
})
const title = table.data[0]!.title
const titleTyped: IsAny<typeof title> = false
const nullable: string | null | undefined = title
const none = await v1ProductsDatatable({
  query: { columns: [{ data: 'id' }, { data: 'title', search: { value: 'no-such-category' } }] },
})
const page = await v1ProductsIndex({ query: { fields: 'name,title', per_page: 2 } })
const pageTitle: IsAny<(typeof page.data)[number]['title']> = false
console.log(JSON.stringify({ draw: table.draw, ids: table.data.map((r) => r.id), nullable: nullable === undefined, none: none.recordsFiltered, page: page.data.length, titleTyped, pageTitle }))
`

test('the list routes type their joined field, and DataTables order and columns compile and are sent', async ({
  url,
  tmp,
}) => {
  const { code, stderr } = await runCli(['create:api-client', `--output=${tmp}`], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.is(code, 0, stderr)
  writeFileSync(join(tmp, 'package.json'), '{"type":"module"}')
  writeFileSync(join(tmp, 'lists.ts'), lists)
  const compiled = await run(TSC, [...STRICT_TSC_FLAGS, join(tmp, 'lists.ts')], {
    cwd: tmp,
  }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  )
  assert.is(compiled, '')
  const result = await run(process.execPath, [join(tmp, 'lists.js')], {
    cwd: tmp,
    env: { ...process.env, BASE_URL: url },
  })
  // Sent as DataTables sends them (order[0][column]=0…): ascending ids, where the default is
  // descending; a column's search narrows to nothing.
  assert.equal(JSON.parse(result.stdout), {
    draw: 3,
    ids: [1, 2, 3, 4],
    nullable: false,
    none: 0,
    page: 2,
    titleTyped: false,
    pageTitle: false,
  })
})

test('the list routes document every status they answer, in the shape they answer it', async ({
  kernel,
}) => {
  const doc = await kernel.plugin('openapi').document()
  const ajv = new Ajv({ strict: false })
  const bodyOf = (path: string, status: number): object => {
    const op = doc.paths[path]!.get!
    const response = op.responses[String(status)] as {
      content: { 'application/json': { schema: object } }
    }
    assert.ok(response, `${path} documents ${status}`)
    return response.content['application/json'].schema
  }
  const cases: [string, string, number][] = [
    [
      '/api/v1/products',
      `filter=${encodeURIComponent('[{"field":"price","op":">","value":"abc"}]')}`,
      400,
    ],
    ['/api/v1/products', 'search=a%00b', 400],
    ['/api/v1/products', `search=${'x'.repeat(201)}`, 422],
    ['/api/v1/products/datatable', `search[value]=${'_%'.repeat(101)}`, 422],
    ['/api/v1/products/datatable', 'columns[0][data]=id&columns[0][search][value]=%00', 400],
  ]
  for (const [path, query, status] of cases) {
    const res = await kernel.inject({
      url: `${path}?${query}`,
      headers: { apikey: 'demo-api-key', accept: 'application/json' },
    })
    assert.is(res.status, status, `${path}?${query}`)
    const validate = ajv.compile(bodyOf(path, status))
    assert.ok(validate(res.json()), `${path}?${query}: ${JSON.stringify(validate.errors)}`)
  }
  for (const path of ['/api/v1/products', '/api/v1/products/datatable'])
    assert.ok(doc.paths[path]!.get!.responses['500'], `${path} documents 500`)
  // fw's error body: each 422 issue is {field, keyword, message, params}, as the server sends it.
  const error = doc.components!.schemas!.Error as { properties: { issues: object } }
  const res = await kernel.inject({
    method: 'POST',
    url: '/api/v1/products',
    headers: { apikey: 'demo-api-key' },
    body: { name: '', sku: 'x', price: -1, stock: 1 },
  })
  assert.is(res.status, 422)
  const issues = ajv.compile({ ...error.properties.issues, minItems: 1 })
  const sent = (res.json() as { issues: unknown }).issues
  assert.ok(issues(sent), JSON.stringify(issues.errors))
  assert.equal((error.properties.issues as { items: { required: string[] } }).items.required, [
    'field',
    'keyword',
    'message',
    'params',
  ])
})

test('fw create:api-client overwrites its files and exits 1 for a missing document', async ({
  tmp,
}) => {
  writeFileSync(join(tmp, 'api-client.js'), '// stale')
  const again = await runCli(['create:api-client', `--output=${tmp}`], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.is(again.code, 0)
  assert.not.match(readFileSync(join(tmp, 'api-client.js'), 'utf8'), '// stale')
  const missing = await runCli(['create:api-client', `--input=${join(tmp, 'none.json')}`], {
    cwd: repo,
    env: { DATABASE_URL: 'pglite://memory' },
  })
  assert.is(missing.code, 1)
  assert.match(missing.stderr, 'it does not exist. Run fw api:docs first')
})

test.run()
