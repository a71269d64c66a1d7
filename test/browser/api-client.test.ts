// The client `fw create:api-client` writes, in a real Chromium on a playground page: without a
// base URL it sends to the API prefix the server injected into the page (`api.prefix`, here
// `/api/v1`), keeps paths already rooted there, and a configured base URL wins.
import * as assert from 'uvu/assert'
import type { PathItemObject } from 'openapi3-ts/oas30'
import { renderClient } from 'fw/plugins/openapi'
import { browserSuite, withPage } from './harness.js'

const test = browserSuite('browser: the generated API client')

const show = (operationId: string): PathItemObject => ({
  get: {
    operationId,
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
    responses: { '200': { description: 'the product' } },
  },
})
// One path written under the prefix's root (as `fw api:docs` writes them), one relative to it.
const { js } = renderClient({
  openapi: '3.0.3',
  info: { title: 'shop', version: '1' },
  paths: { '/products/{id}': show('short.show'), '/api/v1/products/{id}': show('full.show') },
})

test('sends to the injected prefix, keeps rooted paths, and obeys a base URL', async ({
  browser,
  pg,
}) => {
  await withPage(browser, async (page, problems) => {
    await page.route('**/_test/api-client.js', (route) =>
      route.fulfill({ body: js, contentType: 'text/javascript' }),
    )
    const sent: string[] = []
    page.on('request', (r) => {
      if (r.url().includes('/products/')) sent.push(new URL(r.url()).pathname)
    })
    await page.goto(`${pg.url}/`)
    const meta = await page.evaluate(
      () => document.querySelector('meta[name="fw-api-prefix"]')?.getAttribute('content') ?? null,
    )
    assert.is(meta, '/api/v1')
    const names = await page.evaluate(async (base) => {
      const client = (await import('/_test/api-client.js' as string)) as {
        configure(o: object): void
        shortShow(a: { id: number }): Promise<{ data?: { name?: string }; name?: string }>
        fullShow(a: { id: number }): Promise<{ data?: { name?: string }; name?: string }>
      }
      client.configure({ headers: { apikey: 'demo-api-key' } })
      const a = await client.shortShow({ id: 1 })
      const b = await client.fullShow({ id: 2 })
      client.configure({ baseUrl: `${base}/api/v1` })
      const c = await client.shortShow({ id: 3 })
      return [a, b, c].map((r) => r.data?.name ?? r.name ?? null)
    }, pg.url)
    assert.equal(sent, ['/api/v1/products/1', '/api/v1/products/2', '/api/v1/products/3'])
    assert.ok(
      names.every((n) => typeof n === 'string' && n !== ''),
      JSON.stringify(names),
    )
    assert.equal(problems, [])
  })
})

test.run()
