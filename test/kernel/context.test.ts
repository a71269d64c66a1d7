import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { EventLog, json } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('context')

function echo() {
  const kernel = createTestKernel()
  kernel.router.any('echo/{rest}', async (ctx) =>
    json({
      method: ctx.method,
      path: ctx.path,
      uri: ctx.uri,
      querystring: ctx.querystring,
      query: ctx.query,
      cookies: ctx.cookies,
      secure: ctx.secure,
      wantsJson: ctx.wantsJson(),
      params: ctx.params,
    }),
  )
  return kernel
}

test('exposes the request URI without leading and trailing slash, and the query apart', async () => {
  const res = await echo().inject({
    url: 'echo/a%20b/?x=1&f[a][0]=2',
    headers: { accept: 'application/json' },
  })
  assert.equal(res.json(), {
    method: 'GET',
    path: '/echo/a%20b/',
    uri: 'echo/a%20b',
    querystring: 'x=1&f[a][0]=2',
    query: { x: '1', f: { a: ['2'] } },
    cookies: {},
    secure: false,
    wantsJson: true,
    params: { rest: 'a b' },
  })
})

test('parses cookies and knows a TLS request', async () => {
  const res = await echo().inject({
    url: '/echo/x',
    cookies: { session: 'a b', theme: 'dark' },
    secure: true,
  })
  const body = res.json<{ cookies: Record<string, string>; secure: boolean }>()
  assert.equal(body.cookies, { session: 'a b', theme: 'dark' })
  assert.is(body.secure, true)
})

test('keeps the event log append-only, ordered and typed', () => {
  const log = new EventLog()
  log.record('request.received', { method: 'GET', path: '/' })
  log.record('phase.completed', { name: 'routing', start: 0, duration: 1 })
  log.record('phase.completed', { name: 'action', start: 1, duration: 2 })
  assert.is(log.size, 3)
  assert.equal(
    log.ofType('phase.completed').map((e) => e.data.name),
    ['routing', 'action'],
  )
  assert.equal(
    log.all().map((e) => e.type),
    ['request.received', 'phase.completed', 'phase.completed'],
  )
  assert.ok(log.all()[2]!.at >= log.all()[0]!.at)
})

declare module 'fw' {
  interface PhaseNames {
    /** A phase of this suite's own, declared as a plugin declares its phases. */
    'cache-warm': true
  }
}

test('times a phase and records it even when the work throws', async () => {
  const log = new EventLog()
  assert.is(await log.phase('cache-warm', () => 42), 42)
  try {
    await log.phase('controller', () => {
      throw new Error('x')
    })
  } catch {
    // expected
  }
  assert.equal(
    log.ofType('phase.completed').map((e) => e.data.name),
    ['cache-warm', 'controller'],
  )
})

test.run()
