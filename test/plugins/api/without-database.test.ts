// The api plugin without the database plugin: it declares the database as optional, so it works
// with a `checkKey` of the app's own, and refuses to boot without one, naming both ways out.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import api, { API_PIPELINE } from 'fw/plugins/api'
import { createTestKernel } from 'fw/testing'
import { rejectedFwError } from '../../fixtures/thrown.js'

const test = suite('api without the database plugin')

test('checks keys with checkKey and offers no fw app:create', async () => {
  const kernel = createTestKernel({
    plugins: [
      [api, { checkKey: async (key: string) => (key === 'k' ? { name: 'partner' } : undefined) }],
    ],
  })
  kernel.router.group({ prefix: 'api/v1', middleware: [...API_PIPELINE] }, (r) =>
    r.get('ping', () => ({ pong: true })),
  )
  await kernel.boot()
  const ok = await kernel.inject({ url: '/api/v1/ping', headers: { apikey: 'k' } })
  assert.is(ok.status, 200)
  assert.equal(ok.json(), { pong: true })
  const refused = await kernel.inject({ url: '/api/v1/ping', headers: { apikey: 'nope' } })
  assert.is(refused.status, 401)
  assert.is(kernel.commands().length, 0)
})

test('refuses to boot without checkKey, naming the database plugin and the option', async () => {
  const kernel = createTestKernel({ plugins: [[api]] })
  const error = await rejectedFwError(() => kernel.boot())
  assert.is(error.code, 'FW_ERR_API_NO_KEY_CHECK')
  assert.match(error.message, 'Register it, or pass { checkKey }')
})

test.run()
