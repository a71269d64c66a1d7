// CORS in development: the debug plugin keeps its toolbar (`/_fw/*`) open to any origin and lets
// any origin time a reply (`Timing-Allow-Origin`), but app routes, the API's and the others, follow
// `api.cors_origins`, so a restricted list can be tried locally.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import api, { API_PIPELINE } from 'fw/plugins/api'
import debug from 'fw/plugins/debug'
import { createTestKernel } from 'fw/testing'

const test = suite('api: CORS in development')

const LISTED = 'https://app.example'
const OTHER = 'https://elsewhere.example'

function devKernel(origins: string[]): Kernel {
  const kernel = createTestKernel({
    config: {
      app: { name: 'dev-cors', key: 'dev-cors-test-application-key-0123456789' },
      development: true,
      features: ['debug'],
      api: { cors_origins: origins },
    },
    plugins: [
      [api, { checkKey: async (key: string) => (key === 'k' ? { name: 'partner' } : undefined) }],
      [debug],
    ],
  })
  kernel.router.group({ prefix: 'api/v1', middleware: [...API_PIPELINE] }, (r) =>
    r.get('ping', () => ({ pong: true })),
  )
  kernel.router.get('page', () => ({ page: true }))
  return kernel
}

test('app routes answer CORS only for a listed origin; timings stay open', async () => {
  const kernel = devKernel([LISTED])
  await kernel.boot()
  for (const url of ['/api/v1/ping', '/page']) {
    const other = await kernel.inject({ url, headers: { apikey: 'k', origin: OTHER } })
    assert.is(other.status, 200, url)
    assert.is(other.headers['access-control-allow-origin'], undefined, `${url}: unlisted`)
    assert.is(other.headers['timing-allow-origin'], OTHER, `${url}: timing`)
    assert.match(String(other.headers.vary), /\bOrigin\b/, url)
    const listed = await kernel.inject({ url, headers: { apikey: 'k', origin: LISTED } })
    assert.is(listed.headers['access-control-allow-origin'], LISTED, `${url}: listed`)
    assert.is(listed.headers['timing-allow-origin'], LISTED, `${url}: listed timing`)
  }
  await kernel.close()
})

test('the toolbar module stays open to any origin', async () => {
  const kernel = devKernel([LISTED])
  await kernel.boot()
  const res = await kernel.inject({ url: '/_fw/debugbar.mjs', headers: { origin: OTHER } })
  assert.is(res.status, 200)
  assert.is(res.headers['access-control-allow-origin'], OTHER)
  assert.is(res.headers['timing-allow-origin'], OTHER)
  await kernel.close()
})

test("the default ['*'] keeps every app route open in development", async () => {
  const kernel = devKernel(['*'])
  await kernel.boot()
  const page = await kernel.inject({ url: '/page', headers: { origin: OTHER } })
  assert.is(page.headers['access-control-allow-origin'], OTHER)
  const ping = await kernel.inject({ url: '/api/v1/ping', headers: { apikey: 'k', origin: OTHER } })
  assert.is(ping.headers['access-control-allow-origin'], '*')
  await kernel.close()
})

test.run()
