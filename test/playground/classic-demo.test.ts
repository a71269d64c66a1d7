import * as assert from 'uvu/assert'
import { demoSuite } from '../fixtures/booted-app.js'

interface Echo {
  controller: string
  action: string
  option: string | null
  get: Record<string, unknown>
  originalRequest: string
  originalRequestNoChange: string
}

const test = demoSuite('playground classic controller demo')

test('reaches demo/echo through ?r= with an option', async ({ app }) => {
  const res = await app.inject('/?r=demo/echo/x')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'application/json')
  assert.equal(res.json<Echo>(), {
    controller: 'demo',
    action: 'echo',
    option: 'x',
    get: {},
    originalRequest: 'demo/echo/x',
    originalRequestNoChange: 'demo/echo/x',
  })
})

test('turns a key/value pair after the action into a GET parameter', async ({ app }) => {
  const res = await app.inject('/?r=demo/echo/c/d')
  assert.equal(res.json<Echo>(), {
    controller: 'demo',
    action: 'echo',
    option: null,
    get: { c: 'd' },
    originalRequest: 'demo/echo/c/d',
    originalRequestNoChange: 'demo/echo/c/d',
  })
})

test('keeps the other query parameters in get, without r', async ({ app }) => {
  const body = (await app.inject('/?r=demo/echo/c/d&page=2')).json<Echo>()
  assert.equal(body.get, { page: '2', c: 'd' })
})

test('serves the home page at / when no r is given', async ({ app }) => {
  const res = await app.inject('/')
  assert.match(String(res.headers['content-type']), 'text/html')
})

test.run()
