// `minUsertype`: the api plugin's guard for routes a key or a user of some usertype may use, on a
// kernel of its own (a fake key checker; an `authenticate` tap standing for a web session).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Identity } from 'fw'
import api, { API_PIPELINE, minUsertype } from 'fw/plugins/api'
import { createTestKernel } from 'fw/testing'
import { envelope } from './fixtures.js'

const test = suite('api minUsertype')

function app() {
  const kernel = createTestKernel({
    plugins: [
      [api, { checkKey: async (key: string) => (key === 'k' ? { name: 'app' } : undefined) }],
    ],
  })
  // `x-usertype: N` signs in a session user of that usertype, with its CSRF token.
  kernel.hooks.authenticate.tap('test-session', (ctx): Identity | undefined => {
    const usertype = ctx.header('x-usertype')
    if (usertype === undefined) return undefined
    return { id: 7, username: 'u', usertype: Number(usertype), via: 'session', csrf: true }
  })
  kernel.middleware('editor', minUsertype(50))
  kernel.router.group({ prefix: 'api', middleware: [...API_PIPELINE] }, (r) => {
    r.get('items', () => ({ read: true }))
    r.post('items', () => ({ written: true })).middleware('editor')
  })
  return kernel
}

test('a user below the usertype is refused (403 envelope); reads stay open', async () => {
  const kernel = app()
  const headers = { 'x-usertype': '1', accept: 'application/json' }
  const write = await kernel.inject({ method: 'POST', url: '/api/items', headers })
  assert.is(write.status, 403)
  assert.equal(write.json(), {
    ...envelope(403, 'InsufficientUsertype'),
    message: 'Your account may not do this.',
  })
  assert.is((await kernel.inject({ url: '/api/items', headers })).status, 200)
})

test('a user at or above the usertype, or the API key alone, passes', async () => {
  const kernel = app()
  for (const headers of [{ 'x-usertype': '50' }, { 'x-usertype': '100' }, { apikey: 'k' }]) {
    const res = await kernel.inject({ method: 'POST', url: '/api/items', headers })
    assert.is(res.status, 200, JSON.stringify(headers))
    assert.equal(res.json(), { written: true })
  }
})

test('without a user or a key it answers 401 Unauthenticated (when nothing before refused)', async () => {
  const kernel = createTestKernel()
  kernel.middleware('editor', minUsertype(50))
  kernel.router.post('open', () => ({ written: true })).middleware('editor')
  const res = await kernel.inject({ method: 'POST', url: '/open' })
  assert.is(res.status, 401)
  assert.is(res.json<{ error: string }>().error, 'Unauthenticated')
})

test.run()
