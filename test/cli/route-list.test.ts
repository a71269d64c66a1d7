import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from './temp-app.js'

interface Row {
  methods: string[]
  path: string
  handler: string
  name: string | null
  middleware: string[]
}

const test = suite('route:list')
let app: TempApp

test.before(() => {
  // Declared out of order, with groups, several methods, a query route and a controller handler.
  app = createTempApp({
    preamble: `class Products { index() {} show() {} }`,
    setup: `  kernel.middleware('api', async (ctx, next) => next())
  kernel.router.post('zeta', () => null)
  kernel.router.group({ prefix: 'api/v1', middleware: ['api'], name: 'v1.' }, (r) => {
    r.get('products/{id}', [Products, 'show']).name('products.show')
    r.get('products', [Products, 'index']).name('products.index')
    r.delete('products/{id}', () => null)
  })
  kernel.router.match(['PUT', 'PATCH'], 'alpha', () => null)
  kernel.router.get('alpha', () => ({})).name('alpha')
  kernel.router.get('search?type=a', function searchA() { return {} })
  kernel.router.get('/', function home() { return '' }).name('home')`,
  })
})
test.after(() => app.remove())

test('prints one JSON row per route with --json, sorted by path then method', async () => {
  const { code, stdout } = await runCli(['route:list', '--json'], { env: app.env })
  assert.is(code, 0)
  const rows = JSON.parse(stdout) as Row[]
  assert.equal(
    rows.map((r) => `${r.methods.join('|')} ${r.path}`),
    [
      'GET|HEAD /',
      'GET|HEAD alpha',
      'PUT|PATCH alpha',
      'GET|HEAD api/v1/products',
      'GET|HEAD api/v1/products/{id}',
      'DELETE api/v1/products/{id}',
      'GET|HEAD hello',
      'GET|HEAD search?type=a',
      'POST zeta',
    ],
  )
})

test('shows handlers, group-prefixed names and effective middleware in --json', async () => {
  const rows = JSON.parse(
    (await runCli(['route:list', '--json'], { env: app.env })).stdout,
  ) as Row[]
  const show = rows.find((r) => r.path === 'api/v1/products/{id}' && r.methods[0] === 'GET')
  assert.equal(show, {
    methods: ['GET', 'HEAD'],
    path: 'api/v1/products/{id}',
    handler: 'Products@show',
    name: 'v1.products.show',
    middleware: ['api'],
  })
  assert.is(rows.find((r) => r.path === 'zeta')?.name, null)
  assert.is(rows.find((r) => r.path === 'search?type=a')?.handler, 'searchA')
})

test('prints an aligned table with Method, Path, Handler and Name columns', async () => {
  const { code, stdout } = await runCli(['route:list'], { env: app.env })
  assert.is(code, 0)
  const lines = stdout.trimEnd().split('\n')
  assert.match(lines[0]!, /^Method\s+Path\s+Handler\s+Name$/)
  assert.match(lines[1]!, /^-+ {2}-+ {2}-+ {2}-+$/)
  const pathColumn = lines[0]!.indexOf('Path')
  const row = lines.find((l) => l.includes('api/v1/products/{id}') && l.startsWith('GET'))!
  assert.is(row.indexOf('api/v1/products/{id}'), pathColumn)
  assert.match(row, /^GET\|HEAD\s+api\/v1\/products\/\{id\}\s+Products@show\s+v1\.products\.show$/)
  assert.is(lines.length, 2 + 9)
})

test("lists the playground's demo routes by default", async () => {
  const { code, stdout } = await runCli(['route:list', '--json'])
  assert.is(code, 0)
  const rows = JSON.parse(stdout) as Row[]
  assert.equal(rows[0], {
    methods: ['GET', 'HEAD'],
    path: '/',
    handler: 'home',
    name: 'home',
    middleware: [],
  })
  assert.equal(
    rows.find((r) => r.path === '_demo/ping'),
    {
      methods: ['GET', 'HEAD'],
      path: '_demo/ping',
      handler: 'ping',
      name: 'demo.ping',
      middleware: [],
    },
  )
  const paths = rows.map((r) => r.path)
  assert.equal(paths, [...paths].sort())
})

test.run()
