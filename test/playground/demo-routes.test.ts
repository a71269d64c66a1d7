import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { createMemoryLogger, expectEvent } from 'fw/testing'
import createApp from '../../playground/app.js'
import { demoSuite } from '../fixtures/booted-app.js'

const test = demoSuite('playground demo routes')

test('serves the home page as HTML with a </body> and links to the demo routes', async ({
  app,
}) => {
  const res = await app.inject('/')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'text/html')
  assert.match(res.body, '</body>')
  for (const path of [
    '/_demo/ping',
    '/_demo/array',
    '/_demo/text',
    '/_demo/fragment',
    '/_demo/empty',
    '/_demo/redirect',
    '/_demo/error',
    '/?r=demo/echo/x',
  ]) {
    assert.match(res.body, `href="${path}"`, path)
  }
})

test('renders the home page from an Eta template with its layout, and in the dark theme on request', async ({
  app,
}) => {
  const light = await app.inject('/')
  assert.is(expectEvent(light.events, 'view.rendered').template, 'home')
  assert.match(light.body, '<title>Home · fw playground</title>')
  assert.match(light.body, '--accent: #4f46e5')
  const dark = await app.inject('/?theme=dark')
  assert.match(dark.body, 'color-scheme: dark')
  assert.match(expectEvent(dark.events, 'view.rendered').file, /views\/home\.eta$/)
})

test('writes /_demo/log?message= to the log and refuses a missing message with 422', async ({
  app,
}) => {
  const logger = app.logger as ReturnType<typeof createMemoryLogger>
  const res = await app.inject('/_demo/log?message=hello%20log')
  assert.equal(res.json(), { logged: true, message: 'hello log' })
  assert.ok(logger.entries.some((e) => e.level === 'info' && e.message === 'hello log'))
  const missing = await app.inject('/_demo/log')
  assert.is(missing.status, 422)
  assert.match(missing.body, 'message')
})

test('serves /favicon.ico: the committed icon, its content type, cached for a week', async ({
  app,
}) => {
  const icon = readFileSync(new URL('../../playground/assets/favicon.ico', import.meta.url))
  assert.equal([...icon.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file')
  const res = await app.inject('/favicon.ico')
  assert.is(res.status, 200)
  assert.is(res.headers['content-type'], 'image/x-icon')
  assert.is(res.headers['cache-control'], 'public, max-age=604800')
  assert.is(Number(res.headers['content-length']), icon.length)
  const body = res.reply.body
  assert.ok(body.kind === 'bytes' && Buffer.from(body.value).equals(icon))
  const head = await app.inject({ method: 'HEAD', url: '/favicon.ico' })
  assert.is(head.status, 200)
  assert.is(head.headers['content-length'], res.headers['content-length'])
})

test('answers /_demo/ping with exactly {"hello":"world","n":1}', async ({ app }) => {
  const res = await app.inject('/_demo/ping')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'application/json')
  assert.is(res.body, '{"hello":"world","n":1}')
})

test('runs no middleware for /_demo/ping', async ({ app }) => {
  const res = await app.inject('/_demo/ping')
  assert.ok(res.events.some((e) => e.type === 'route.matched'))
  assert.not.ok(
    res.events.some(
      (e) => e.type === 'phase.completed' && (e.data as { name: string }).name === 'middleware',
    ),
  )
})

test('answers /_demo/array with a top-level JSON array', async ({ app }) => {
  const res = await app.inject('/_demo/array')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'application/json')
  const body = res.json<unknown[]>()
  assert.ok(Array.isArray(body))
  assert.ok(body.length > 0)
})

test('answers /_demo/text with a plain-text body', async ({ app }) => {
  const res = await app.inject('/_demo/text')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'text/plain')
  assert.ok(res.body.length > 0)
})

test('answers /_demo/fragment with HTML that has no </body>', async ({ app }) => {
  const res = await app.inject('/_demo/fragment')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'text/html')
  assert.match(res.body, '<')
  assert.not.match(res.body, '</body>')
})

test('answers /_demo/empty with 204 and no body', async ({ app }) => {
  const res = await app.inject('/_demo/empty')
  assert.is(res.status, 204)
  assert.is(res.body, '')
})

test('answers /_demo/redirect with a 302 to /', async ({ app }) => {
  const res = await app.inject('/_demo/redirect')
  assert.is(res.status, 302)
  assert.is(res.headers.location, '/')
})

test('answers /_demo/error with a 500 that shows the message in development', async ({ app }) => {
  const res = await app.inject({ url: '/_demo/error', headers: { accept: 'application/json' } })
  assert.is(res.status, 500)
  const body = res.json<{ error: string; message?: string }>()
  assert.is(body.error, 'unavailable')
  assert.match(String(body.message), 'threw on purpose')
  const page = await app.inject({ url: '/_demo/error', headers: { accept: 'text/html' } })
  assert.is(page.status, 500)
  assert.match(String(page.headers['content-type']), 'text/html')
})

test('hides the error message of /_demo/error in production', async () => {
  const production = createApp({
    env: { NODE_ENV: 'production', DATABASE_URL: 'pglite://memory' },
    logger: createMemoryLogger(),
  })
  const res = await production.inject({
    url: '/_demo/error',
    headers: { accept: 'application/json' },
  })
  assert.is(res.status, 500)
  assert.equal(res.json(), { error: 'unavailable' })
})

test('answers HEAD on a demo route without a body', async ({ app }) => {
  const res = await app.inject({ method: 'HEAD', url: '/_demo/ping' })
  assert.is(res.status, 200)
  assert.is(res.body, '')
})

test.run()
