import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, type AnyEvent } from 'fw'
import {
  injectToolbar,
  islandJson,
  measure,
  recordService,
  serverTiming,
  summaryHeader,
  toolbarAssets,
  buildToolbar,
} from 'fw/plugins/debug'
import api from 'fw/plugins/api'
import openapi from 'fw/plugins/openapi'
import { debugKernel, islandOf, PAGE } from './helpers.js'

const test = suite('debug: delivery in development')
const ID = /^[0-9a-f]{16}$/

function summary(headers: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(String(headers['x-fw-debug'])) as Record<string, unknown>
}

test('a JSON object gets _debug with every payload key; the headers are set', async () => {
  const kernel = debugKernel()
  const res = await kernel.inject('/obj?password=p4ss&q=ok')
  const body = res.json<{ a: number; _debug: Record<string, unknown> }>()
  assert.is(body.a, 1)
  assert.equal(Object.keys(body._debug), [
    'time',
    'memory',
    'request',
    'request_method',
    'timing',
    'queries',
    'route',
    'auth',
    'session',
    'logs',
    'views',
    'models',
    'services',
    'migrations',
    'exceptions',
    'devpanel',
  ])
  const request = body._debug.request as Record<string, unknown>
  assert.match(String(request.id), ID)
  assert.is(request.id, res.headers['x-request-id'])
  assert.equal(request.query, { password: '***', q: 'ok' })
  assert.is(request.status, 200)
  assert.is(body._debug.request_method, 'GET')
  assert.equal((body._debug.route as { name: string }).name, 'obj')
  const s = summary(res.headers)
  assert.equal(Object.keys(s), ['time', 'memory', 'id', 'route'])
  assert.is(s.id, request.id)
  assert.is(s.route, 'obj')
  assert.match(String(res.headers['server-timing']), /routing;dur=[\d.]+/)
  assert.match(String(res.headers['server-timing']), /total;dur=[\d.]+$/)
  assert.match(String(res.headers['server-timing']), /bootstrap;dur=/)
  assert.is(res.headers.vary, 'Cookie')
  assert.is(res.headers['cache-control'], undefined, 'development alone is not a token grant')
  await kernel.close()
})

test('arrays, strings, fragments and bodies that already have _debug are untouched', async () => {
  const kernel = debugKernel()
  assert.is((await kernel.inject('/arr')).body, '[1,2]')
  assert.is((await kernel.inject('/str')).body, 'plain')
  assert.is((await kernel.inject('/fragment')).body, '<p>fragment</p>')
  assert.is((await kernel.inject('/has-debug')).body, '{"_debug":"mine","b":2}')
  await kernel.close()
})

test('headers on 204, redirects, fragments, arrays, 404s and error pages', async () => {
  const kernel = debugKernel()
  for (const url of ['/none', '/go', '/fragment', '/arr', '/str', '/missing', '/boom']) {
    const res = await kernel.inject(url)
    assert.ok(res.headers['x-fw-debug'], `${url}: X-Fw-Debug`)
    assert.match(String(res.headers['x-request-id']), ID, `${url}: X-Request-Id`)
    assert.ok(String(res.headers['server-timing']).includes('total;dur='), `${url}: Server-Timing`)
    // The kernel's own error replies (404, 500) chose JSON or a page by `Accept`: `Vary: Accept`.
    const vary = ['/missing', '/boom'].includes(url) ? 'Accept, Cookie' : 'Cookie'
    assert.is(res.headers.vary, vary, `${url}: Vary`)
  }
  const boom = await kernel.inject('/boom')
  const s = summary(boom.headers)
  assert.is(s.errors, 1)
  assert.not.ok(String(boom.headers['x-fw-debug']).includes('secret failure'), 'no error message')
  assert.is((await kernel.inject('/none')).status, 204)
  assert.is(summary((await kernel.inject('/obj')).headers).errors, undefined, 'errors only above 0')
  await kernel.close()
})

test('a request id is fresh per request and never taken from X-Request-Id', async () => {
  const kernel = debugKernel()
  const a = await kernel.inject({ url: '/id', headers: { 'x-request-id': 'aaaaaaaaaaaaaaaa' } })
  const b = await kernel.inject('/id')
  const idA = a.json<{ id: string }>().id
  assert.match(idA, ID)
  assert.is.not(idA, 'aaaaaaaaaaaaaaaa')
  assert.is(a.headers['x-request-id'], idA)
  assert.is.not(b.json<{ id: string }>().id, idA)
  await kernel.close()
})

test('one time figure: _debug.time (JSON and the page island) is X-Fw-Debug time', async () => {
  const kernel = debugKernel()
  await kernel.boot()
  // A projection that takes a while: the payload's building is not part of the figure.
  kernel.plugin('debug').project('slow', () => {
    const until = performance.now() + 3
    while (performance.now() < until);
    return 'done'
  })
  const json = await kernel.inject('/obj')
  const time = json.json<{ _debug: { time: number } }>()._debug.time
  assert.is(summary(json.headers).time, time)
  const page = await kernel.inject('/page')
  const island = JSON.parse(islandOf(page.body)!) as { time: number }
  assert.is(summary(page.headers).time, island.time)
  // Server-Timing's total includes the building.
  const total = /total;dur=([\d.]+)/.exec(String(page.headers['server-timing']))![1]!
  assert.ok(Number(total) >= island.time + 3, `${total} ≥ ${island.time} + 3`)
})

/** The settings in a page's toolbar script element. */
function toolbarConfigOf(body: string): Record<string, unknown> {
  const config = /<script data-config="([^"]*)">/.exec(body)![1]!
  return JSON.parse(config.replaceAll('&quot;', '"')) as Record<string, unknown>
}

test('the API tab is told by the api and openapi plugins; the browser option wins', async () => {
  const told = debugKernel({ apiPrefix: '/api/v2/' })
  told
    .register(api, { checkKey: async () => undefined })
    .register(openapi, { route: 'docs/api.json' })
  assert.equal(toolbarConfigOf((await told.inject('/page')).body), {
    apiPrefix: '/api/v2',
    openapi: '/docs/api.json',
    devpanel: '/devpanel/logs',
  })
  const given = debugKernel({
    apiPrefix: '/api/v2',
    options: { browser: { apiPrefix: '/v3', openapi: '/v3/doc.json' } },
  })
  given.register(api, { checkKey: async () => undefined }).register(openapi, {})
  assert.equal(toolbarConfigOf((await given.inject('/page')).body), {
    apiPrefix: '/v3',
    openapi: '/v3/doc.json',
    devpanel: '/devpanel/logs',
  })
  await Promise.all([told.close(), given.close()])
})

test('an HTML page gets the island and the script once, before the last </body>, any case', async () => {
  const kernel = debugKernel()
  const res = await kernel.inject('/page')
  const at = res.body.lastIndexOf('</body>')
  const before = res.body.slice(0, at)
  const script = /<script data-config="([^"]*)">([^]*)<\/script>$/.exec(before)
  assert.ok(script, 'the inline toolbar script ends the body')
  // No api or openapi plugin told it anything: no document to list, operations sent to the root.
  assert.equal(JSON.parse(script![1]!.replaceAll('&quot;', '"')), {
    apiPrefix: '',
    devpanel: '/devpanel/logs',
  })
  assert.is(script![2], toolbarAssets().inline)
  assert.not.ok(/<\/script|<!--/i.test(script![2]!), 'the inline code cannot end its element')
  assert.is(res.body.split('id="fw-debug-data"').length, 2)
  const island = JSON.parse(islandOf(res.body)!) as { request: { id: string } }
  assert.is(island.request.id, res.headers['x-request-id'])
  assert.ok(res.body.startsWith(PAGE.slice(0, PAGE.indexOf('</body>'))))
  const upper = (await kernel.inject('/upper')).body
  assert.ok(/<\/script><\/Body ><\/html>$/.test(upper), upper)
  assert.ok(upper.includes('<p>x</p></BODY>'), 'only before the last </body>')
  // Idempotent: a page already carrying the island is left alone.
  assert.is(
    injectToolbar(res.body, () => 'X'),
    res.body,
  )
  // The classic script and the module's stable entry are served, revalidated on every use.
  const js = await kernel.inject('/_fw/debugbar.js')
  assert.is(js.status, 200)
  assert.match(String(js.headers['content-type']), /javascript/)
  assert.is(js.body, toolbarAssets().inline)
  assert.is(js.headers['cache-control'], 'no-cache')
  const mjs = await kernel.inject('/_fw/debugbar.mjs')
  assert.is(mjs.body, `export { record, reportError } from './${toolbarAssets().module}'\n`)
  await kernel.close()
})

test('the island cannot be closed by a hostile route path or session value', async () => {
  const kernel = debugKernel()
  const hostile = '</script><script>alert(1)</script>'
  const res = await kernel.inject(
    `/hostile/${encodeURIComponent(hostile)}?x=${encodeURIComponent('<!--<script>')}`,
  )
  const text = islandOf(res.body)!
  assert.not.ok(/[<>]/.test(text), 'no < or > inside the island')
  assert.not.ok(text.includes('\u2028'))
  assert.is(res.body.split('<script').length - 1, 2, 'exactly the two injected script elements')
  const island = JSON.parse(text) as {
    route: { params: { name: string } }
    session: { data: Record<string, string> }
    request: { query: { x: string } }
  }
  assert.is(island.route.params.name, hostile)
  assert.is(island.session.data.note, '</script><script>alert(1)</script><!--')
  assert.is(island.session.data.line, 'a\u2028b')
  assert.is(island.session.data.password, '***')
  assert.is(island.request.query.x, '<!--<script>')
  assert.is(islandJson({ a: '</script>' }), '{"a":"\\u003c/script\\u003e"}')
  await kernel.close()
})

test('a CSP nonce goes on the script element, escaped', async () => {
  const kernel = debugKernel()
  const res = await kernel.inject('/nonce')
  assert.ok(res.body.includes('<script nonce="n0nce&quot;x" data-config="'))
  const custom = debugKernel({ options: { nonce: () => 'abc' } })
  assert.ok((await custom.inject('/page')).body.includes('nonce="abc"'))
  await kernel.close()
  await custom.close()
})

test('injection that throws or shortens the body sends the original', () => {
  assert.is(
    injectToolbar(PAGE, () => {
      throw new Error('x')
    }),
    PAGE,
  )
  const page = '<body>x</body>'
  assert.is(
    injectToolbar(page, () => ''),
    page,
  )
  assert.is(
    injectToolbar('<p>no body</p>', () => 'X'),
    '<p>no body</p>',
  )
})

test('a projection that throws becomes {error} under its key; the response is unharmed', async () => {
  const kernel = debugKernel()
  kernel.register(
    definePlugin({
      name: 'broken-views',
      optionalDependsOn: ['debug'],
      setup(k) {
        k.plugin('debug').project('views', () => {
          throw new Error('views broke')
        })
      },
    }),
  )
  const res = await kernel.inject('/obj')
  assert.is(res.status, 200)
  const body = res.json<{ a: number; _debug: { views: unknown; time: number } }>()
  assert.equal(body._debug.views, { error: 'views broke' })
  assert.is(typeof body._debug.time, 'number')
  await kernel.close()
})

function ev(type: string, data: unknown, at = 1): AnyEvent {
  return { type, at, data } as AnyEvent
}

test('Server-Timing: framework phases, db with its count, total; never an app-named timer', () => {
  const q = { sql: 'select 1', params: [], duration: 2, rows: 1, failed: false }
  const events = [
    ev('phase.completed', { name: 'routing', start: 0, duration: 0.5 }),
    ev('phase.completed', { name: 'my-own-timer', start: 0, duration: 9 }),
    ev('phase.completed', { name: 'action', start: 1, duration: 1.25 }),
    ev('query.executed', q),
  ]
  const one = serverTiming(
    events,
    [
      { name: 'bootstrap', duration: 3 },
      { name: 'warmup', duration: 1 },
    ],
    4,
  )
  assert.is(
    one,
    'bootstrap;dur=3, routing;dur=0.5, action;dur=1.25, db;dur=2;desc="1 query", total;dur=4',
  )
  const two = serverTiming([...events, ev('query.executed', q)], [], 5)
  assert.ok(two.includes('db;dur=4;desc="2 queries"'))
  assert.not.ok(two.includes('my-own-timer'))
  const s = JSON.parse(
    summaryHeader(
      [
        ev('route.matched', {
          method: 'GET',
          path: 'é',
          name: undefined,
          handler: 'h',
          params: {},
        }),
      ],
      1,
      1048576,
      undefined,
    ),
  ) as Record<string, unknown>
  assert.equal(s, { time: 1, memory: 1, route: 'GET é' })
})

test('measure returns or rethrows unchanged and records service events', async () => {
  const kernel = debugKernel()
  kernel.router.get('svc', async (ctx) => {
    recordService('Mailer', ctx)
    const sync = measure('sync', () => 41 + 1, ctx)
    const p = Promise.resolve('v')
    const same = measure('async', () => p, ctx) === p
    let rethrown = false
    const err = new Error('nope')
    try {
      measure(
        'fails',
        () => {
          throw err
        },
        ctx,
      )
    } catch (e) {
      rethrown = e === err
    }
    await measure('async', () => p, ctx)
    await measure('rejects', () => Promise.reject(new Error('r')), ctx).catch(() => undefined)
    return { sync, same, rethrown }
  })
  const res = await kernel.inject('/svc')
  const body = res.json<{
    sync: number
    same: boolean
    rethrown: boolean
    _debug: { services: unknown }
  }>()
  assert.is(body.sync, 42)
  assert.ok(body.same, 'the same promise comes back')
  assert.ok(body.rethrown)
  const services = body._debug.services as {
    name: string
    constructed?: boolean
    calls?: number
    failed?: number
  }[]
  const by = (name: string) => services.find((s) => s.name === name)!
  assert.equal(services.map((s) => s.name).sort(), ['Mailer', 'async', 'fails', 'rejects', 'sync'])
  assert.ok(by('Mailer').constructed)
  assert.is(by('async').calls, 2)
  assert.is(by('fails').failed, 1)
  assert.is(by('rejects').failed, 1)
  assert.is(
    measure('outside', () => 'x'),
    'x',
    'outside a request it just runs',
  )
  await kernel.close()
})

test('redaction: body, query, log context and SQL params are masked at capture', async () => {
  const kernel = debugKernel()
  kernel.router.post('form', async (ctx) => {
    await ctx.body()
    return { ok: true }
  })
  const res = await kernel.inject({
    method: 'POST',
    url: '/form?api_key=k1&page=2',
    body: {
      username: 'ann',
      password: 'pw-123',
      csrf_token: 'c',
      code: '123456',
      nested: { client_secret: 's', totp: '654321' },
      bearer: 'Bearer abcdefghijklmnopqrstuvwxyz',
    },
  })
  const text = res.body
  for (const secret of ['pw-123', '"c"', '123456', '654321', 'abcdefghijklmnop', 'k1'])
    assert.not.ok(text.includes(secret), `${secret} leaked`)
  const { redactParams } = await import('fw/plugins/debug')
  assert.equal(
    redactParams(
      'insert into "t" ("id", "password_hash", "flag", "name") values (?, ?, false, ?)',
      [1, 'h', 'x'],
    ),
    [1, '***', 'x'],
  )
  assert.equal(
    redactParams('select * from "u" where "token_hash" = ? and "name" = ?', ['h', 'ann']),
    ['***', 'ann'],
  )
  await kernel.close()
})

test('keeps a request body up to 8 KB, cuts and marks a longer one, masking secrets at every size', async () => {
  const kernel = debugKernel()
  kernel.router.post('submit', () => ({ ok: true }))
  type Body = { _debug: { request: { body?: unknown } } }
  const small = await kernel.inject({
    method: 'POST',
    url: '/submit',
    body: { note: 'hi', password: 'hunter2' },
  })
  assert.equal(small.json<Body>()._debug.request.body, { note: 'hi', password: '***' })
  const big = await kernel.inject({
    method: 'POST',
    url: '/submit',
    body: { note: 'x'.repeat(10_000), password: 'hunter2' },
  })
  const cut = big.json<Body>()._debug.request.body as {
    truncated: boolean
    size: number
    head: string
  }
  assert.is(cut.truncated, true)
  assert.ok(cut.size > 10_000)
  assert.is(cut.head.length, 8 * 1024)
  assert.not.match(big.body, 'hunter2')
})

test('the built toolbar is reused: its source hash does not depend on how the root is spelled', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url))
  const a = buildToolbar(root.endsWith('/') ? root : `${root}/`)
  const b = buildToolbar(root.replace(/\/+$/, ''))
  assert.is(a.source, b.source)
  assert.is(a.script, toolbarAssets().script)
})

test.run()
