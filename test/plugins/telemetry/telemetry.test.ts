import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import parsePrometheus from 'parse-prometheus-text-format'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, json, silentLogger, type Kernel } from 'fw'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import health from 'fw/plugins/health'
import logging from 'fw/plugins/logging'
import telemetry from 'fw/plugins/telemetry'

const test = suite<{
  db: TestDatabase
  kernel: Kernel
  exporter: InMemorySpanExporter
  lines: string[]
}>('telemetry')

/** Waits for the projection, which runs after the response is sent. */
const settled = () => new Promise((resolve) => setImmediate(resolve))
const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6

function app(
  db: TestDatabase,
  options: { traced: boolean; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv },
) {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const lines: string[] = []
  const kernel = createKernel({
    logger: silentLogger,
    config: { development: false, ...options.config },
    ...(options.env === undefined ? {} : { env: options.env }),
  })
  kernel.register(logging, { destination: { write: (line: string) => void lines.push(line) } })
  kernel.register(database, { url: db.url, entities: [] })
  kernel.register(telemetry, options.traced ? { tracerProvider: provider } : {})
  kernel.router.get('three', async (ctx) => {
    const database = ctx.kernel.plugin('database')
    for (const n of [1, 2, 3]) await database.runStatement({ sql: 'select ? as n', bindings: [n] })
    ctx.kernel.plugin('logging').logger(ctx).info('ran three')
    return { ok: true }
  })
  kernel.router.get('items/{id}', (ctx) => ({ id: ctx.params.id }))
  kernel.router.get('fail', () => json({ error: 'down' }, 500))
  kernel.router.get('boom', () => {
    throw new Error('kaboom')
  })
  kernel.router.get('ping', () => ({ pong: true }))
  return { kernel, exporter, lines }
}

test.before(async (context) => {
  context.db = await createTestDatabase()
  Object.assign(context, app(context.db, { traced: true }))
  await context.kernel.boot()
})
test.after(async ({ kernel, db }) => {
  await kernel.close()
  await db.drop()
})
test.before.each(({ exporter }) => exporter.reset())

// The apps a test makes beside the suite's, closed even when its assertions fail (an open one
// would keep the run from ending).
const extraKernels: Kernel[] = []
function anotherApp(...args: Parameters<typeof app>): ReturnType<typeof app> {
  const made = app(...args)
  extraKernels.push(made.kernel)
  return made
}
test.after.each(async () => {
  for (const kernel of extraKernels.splice(0)) await kernel.close()
})

function tree(exporter: InMemorySpanExporter) {
  const spans = exporter.getFinishedSpans()
  const server = spans.find((s) => s.kind === SpanKind.SERVER)!
  const children = (parent: ReadableSpan) =>
    spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId)
  return { spans, server, children }
}

test('traces a request with 3 statements: the server span, its phases, one span per statement', async ({
  kernel,
  exporter,
}) => {
  const res = await kernel.inject({ url: '/three', headers: { host: 'shop.test:8080' } })
  assert.is(res.status, 200)
  await settled()
  const { spans, server, children } = tree(exporter)
  assert.is(server.name, 'GET /three')
  assert.equal(server.attributes, {
    'http.request.method': 'GET',
    'url.path': '/three',
    'url.scheme': 'http',
    'client.address': '127.0.0.1',
    'server.address': 'shop.test',
    'server.port': 8080,
    'http.route': '/three',
    'http.response.status_code': 200,
  })
  assert.is(server.status.code, SpanStatusCode.UNSET)
  const statements = spans.filter((s) => s.attributes['db.system'] === 'postgresql')
  assert.is(statements.length, 3)
  for (const s of statements) {
    assert.is(s.name, 'SELECT')
    assert.is(s.kind, SpanKind.CLIENT)
    assert.equal(
      [s.attributes['db.operation.name'], s.attributes['db.query.text']],
      ['SELECT', 'select ? as n'],
    )
    assert.is(s.spanContext().traceId, server.spanContext().traceId)
  }
  const phases = children(server).filter((s) => s.kind === SpanKind.INTERNAL)
  assert.ok(
    phases.some((p) => p.name === 'action'),
    phases.map((p) => p.name).join(', '),
  )
  // Each statement hangs under the phase it ran in, and every span lies inside its parent.
  const action = phases.find((p) => p.name === 'action')!
  assert.equal(
    statements.map((s) => s.parentSpanContext?.spanId),
    Array(3).fill(action.spanContext().spanId),
  )
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
  for (const s of spans) {
    const parent = byId.get(s.parentSpanContext?.spanId ?? '')
    if (parent === undefined) continue
    assert.ok(
      ms(s.startTime) >= ms(parent.startTime) - 0.01,
      `${s.name} starts inside ${parent.name}`,
    )
    assert.ok(ms(s.endTime) <= ms(parent.endTime) + 0.01, `${s.name} ends inside ${parent.name}`)
  }
})

test('names the route template in http.route, not the raw path', async ({ kernel, exporter }) => {
  await kernel.inject('/items/42')
  await settled()
  const { server } = tree(exporter)
  assert.is(server.attributes['http.route'], '/items/{id}')
  assert.is(server.attributes['url.path'], '/items/42')
  assert.is(server.name, 'GET /items/{id}')
})

test('reads server.address and server.port from every form of Host', async ({
  kernel,
  exporter,
}) => {
  const seen: Array<[unknown, unknown]> = []
  const hosts = ['[::1]:3000', '[::1]', 'shop.test', '127.0.0.1:80', 'shop.test:x', '[::1]:x']
  for (const host of hosts) {
    exporter.reset()
    await kernel.inject({ url: '/ping', headers: { host } })
    await settled()
    const { attributes } = tree(exporter).server
    seen.push([attributes['server.address'], attributes['server.port']])
  }
  assert.equal(seen, [
    ['[::1]', 3000],
    ['[::1]', undefined],
    ['shop.test', undefined],
    ['127.0.0.1', 80],
    ['shop.test', undefined],
    ['[::1]', undefined],
  ])
})

test('records a method outside the known ones as _OTHER, named HTTP, the original kept', async ({
  kernel,
  exporter,
  db,
}) => {
  const res = await kernel.inject({ method: 'PROPFIND', url: '/ping' })
  assert.is(res.status, 405)
  await settled()
  const other = tree(exporter).server
  assert.is(other.name, 'HTTP')
  assert.is(other.attributes['http.request.method'], '_OTHER')
  assert.is(other.attributes['http.request.method_original'], 'PROPFIND')
  exporter.reset()
  await kernel.inject('/ping')
  await settled()
  const known = tree(exporter).server
  assert.is(known.name, 'GET /ping')
  assert.is(known.attributes['http.request.method'], 'GET')
  assert.not.ok('http.request.method_original' in known.attributes)
  // The conventions' variable replaces the list: GET is no longer known, PROPFIND is.
  const custom = anotherApp(db, {
    traced: true,
    env: { OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS: 'PROPFIND, POST' },
  })
  await custom.kernel.boot()
  await custom.kernel.inject({ method: 'PROPFIND', url: '/ping' })
  await custom.kernel.inject('/ping')
  await settled()
  const [propfind, get] = custom.exporter
    .getFinishedSpans()
    .filter((s) => s.kind === SpanKind.SERVER)
  assert.is(propfind?.attributes['http.request.method'], 'PROPFIND')
  assert.is(propfind?.name, 'PROPFIND')
  assert.is(get?.attributes['http.request.method'], '_OTHER')
  assert.is(get?.attributes['http.request.method_original'], 'GET')
  assert.is(get?.name, 'HTTP /ping')
})

test('records the query string with every secret masked, the scheme and the client address', async ({
  kernel,
  exporter,
}) => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWFrIn0.bGVhay1zaWduYXR1cmUtbGVhaw'
  const query = [
    'page=2',
    'q=red+shoes',
    'token=tok-leak-1',
    'a%5Btoken%5D=tok-leak-2',
    'sig=sig-leak-3',
    'X-Goog-Signature=sig-leak-4',
    'AWSAccessKeyId=AKIA-leak-5',
    `next=${jwt}`,
    'flag',
  ].join('&')
  await kernel.inject({ url: `/ping?${query}`, secure: true, remoteAddress: '203.0.113.9' })
  await settled()
  const { attributes } = tree(exporter).server
  assert.is(
    attributes['url.query'],
    'page=2&q=red+shoes&token=***&a%5Btoken%5D=***&sig=***&X-Goog-Signature=***&AWSAccessKeyId=***&next=***&flag',
  )
  assert.not.match(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes)), 'leak')
  assert.is(attributes['url.path'], '/ping')
  assert.is(attributes['url.scheme'], 'https')
  assert.is(attributes['client.address'], '203.0.113.9')
  exporter.reset()
  // A hostile query string: only its first hundred parameters are checked and kept.
  const many = Array.from({ length: 150 }, (_, i) => `p${i}=${i}`).join('&')
  await kernel.inject(`/ping?${many}`)
  await settled()
  const kept = String(tree(exporter).server.attributes['url.query'])
  assert.is(kept.split('&').length, 100)
  assert.ok(kept.endsWith('p99=99'))
  exporter.reset()
  await kernel.inject('/ping')
  await settled()
  const plain = tree(exporter).server.attributes
  assert.not.ok('url.query' in plain)
  assert.is(plain['url.scheme'], 'http')
})

test('marks a 500 and a thrown exception as errors', async ({ kernel, exporter }) => {
  await kernel.inject('/fail')
  await settled()
  const failed = tree(exporter).server
  assert.is(failed.status.code, SpanStatusCode.ERROR)
  assert.is(failed.attributes['http.response.status_code'], 500)
  exporter.reset()
  await kernel.inject('/boom')
  await settled()
  const thrown = tree(exporter).server
  assert.is(thrown.status.code, SpanStatusCode.ERROR)
  assert.is(thrown.status.message, 'kaboom')
  const event = thrown.events.find((e) => e.name === 'exception')
  assert.equal(event?.attributes, { 'exception.type': 'Error', 'exception.message': 'kaboom' })
  assert.is(thrown.attributes['http.response.status_code'], 500)
})

test('continues the trace of an incoming traceparent, tracestate kept', async ({
  kernel,
  exporter,
}) => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const parent = '00f067aa0ba902b7'
  await kernel.inject({
    url: '/ping',
    headers: { traceparent: `00-${traceId}-${parent}-01`, tracestate: 'vendor=opaque' },
  })
  await settled()
  const { server } = tree(exporter)
  assert.is(server.spanContext().traceId, traceId)
  assert.is(server.parentSpanContext?.spanId, parent)
  assert.is(server.spanContext().traceState?.get('vendor'), 'opaque')
  exporter.reset()
  await kernel.inject({ url: '/ping', headers: { traceparent: 'garbage' } })
  await settled()
  const fresh = tree(exporter).server
  assert.is(fresh.parentSpanContext, undefined, 'a malformed traceparent starts a new trace')
  assert.match(fresh.spanContext().traceId, /^[0-9a-f]{32}$/)
})

test("writes the trace id into the request's log lines", async ({ kernel, exporter, lines }) => {
  lines.length = 0
  await kernel.inject('/three')
  await settled()
  const { server } = tree(exporter)
  const line = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'ran three')
  assert.is(line?.trace_id, server.spanContext().traceId)
  assert.is(line?.span_id, server.spanContext().spanId)
})

test('adds nothing to a request when no tracer provider is registered and metrics are off', async ({
  db,
}) => {
  const { kernel, lines } = anotherApp(db, { traced: false })
  await kernel.boot()
  assert.is(kernel.plugin('telemetry').tracing, false)
  for (const hook of [kernel.hooks.request, kernel.hooks.annotate])
    assert.not.ok(hook.taps.some((t) => t.name === 'telemetry'))
  assert.is((await kernel.inject('/metrics')).status, 404, 'no metrics route either')
  await kernel.inject('/three')
  const line = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'ran three')
  assert.ok(line !== undefined && !('trace_id' in line))
})

test('serves Prometheus metrics that count a known sequence of requests', async ({ db }) => {
  const { kernel } = anotherApp(db, {
    traced: false,
    config: { telemetry: { metrics: true, metrics_token: 'scrape-token-0123456789' } },
  })
  kernel.register(health, { diskSpace: false, memoryLimit: false, cache: false })
  await kernel.boot()
  for (let i = 0; i < 3; i++) await kernel.inject('/ping')
  await kernel.inject('/nowhere')
  for (let i = 0; i < 2; i++) await kernel.inject('/three')
  await kernel.inject('/items/7')
  await kernel.inject({ method: 'PROPFIND', url: '/ping' })
  await settled()
  const res = await kernel.inject({
    url: '/metrics',
    headers: { authorization: 'Bearer scrape-token-0123456789' },
  })
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), 'text/plain; version=0.0.4')
  const text = res.body.toString()
  const families = new Map(parsePrometheus(text).map((f) => [f.name, f]))
  // The parser folds every series of a labelled histogram into one, so the series' `_count`
  // samples are read from a second parse with the histograms' TYPE lines dropped: untyped, each
  // `_count` sample keeps its labels (and a family reappears once per series).
  const untyped = parsePrometheus(text.replace(/^# TYPE \S+ histogram$/gm, ''))
  const count = (name: string, labels: Record<string, string>) =>
    Number(
      untyped
        .filter((f) => f.name === `${name}_count`)
        .flatMap((f) => f.metrics)
        .find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? 0,
    )
  const duration = 'http_server_request_duration_seconds'
  assert.is(families.get(duration)?.type, 'HISTOGRAM')
  assert.is(count(duration, { route: '/ping', status_code: '200', method: 'GET' }), 3)
  assert.is(count(duration, { route: '(unmatched)', status_code: '404' }), 1)
  assert.is(count(duration, { route: '/three', status_code: '200' }), 2)
  assert.is(
    count(duration, { route: '/items/{id}', status_code: '200' }),
    1,
    'the template, not /items/7',
  )
  assert.is(count(duration, { method: '_OTHER', status_code: '405' }), 1, 'not PROPFIND')
  assert.not.match(text, 'PROPFIND')
  assert.is(count('db_client_operation_duration_seconds', { operation: 'SELECT' }), 6)
  const inFlight = families.get('http_server_active_requests')?.metrics[0]?.value
  assert.is(inFlight, '1', 'the scrape itself')
  const checks = families.get('health_check_status')?.metrics ?? []
  assert.ok(checks.length > 0 && checks.every((m) => m.value === '1'), JSON.stringify(checks))
})

test('refuses the metrics to an anonymous caller, a wrong token and a user below the floor', async ({
  db,
}) => {
  const { kernel } = anotherApp(db, {
    traced: false,
    config: { telemetry: { metrics: true, metrics_token: 'scrape-token-0123456789' } },
  })
  // Who is signed in, as a header says (an auth plugin would read a session or a token).
  kernel.hooks.authenticate.tap('test-user', (ctx) => {
    const usertype = ctx.header('x-test-usertype')
    return usertype === undefined
      ? undefined
      : { id: 1, username: 'u', usertype: Number(usertype), via: 'test' }
  })
  await kernel.boot()
  const get = (headers: Record<string, string> = {}) =>
    kernel.inject({ url: '/metrics', headers: { accept: 'application/json', ...headers } })
  const anonymous = await get()
  assert.is(anonymous.status, 401)
  assert.equal(anonymous.json<{ error: string }>().error, 'unauthenticated')
  assert.not.match(anonymous.body.toString(), 'http_server')
  assert.is((await get({ authorization: 'Bearer scrape-token-0123456788' })).status, 401)
  assert.is((await get({ authorization: 'Bearer scrape-token-0123456789x' })).status, 401)
  assert.is((await get({ 'x-test-usertype': '50' })).status, 403)
  assert.is((await get({ 'x-test-usertype': '90' })).status, 200)
})

test.run()
