// The telemetry plugin's `exporter` path: fw's own span records, batched to a standard
// OpenTelemetry exporter. Its spans are compared with the SDK path's on the same requests (both
// projections driven from one request's event log), then the path is exercised through the plugin:
// sampling, the queue's limits, failing exporters, shutdown, OTLP over HTTP.
import { createServer, type Server } from 'node:http'
import { ROOT_CONTEXT, SamplingDecision, SpanKind } from '@opentelemetry/api'
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  InMemorySpanExporter,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, HttpError, json, silentLogger, type Kernel } from 'fw'
import { createMemoryLogger } from 'fw/testing'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import logging from 'fw/plugins/logging'
import telemetry, { type SpanRecord, type TelemetryOptions } from 'fw/plugins/telemetry'
import { traceBothPaths } from './both-paths.js'

const test = suite<{ db: TestDatabase }>('span records')

test.before(async (context) => {
  context.db = await createTestDatabase()
})
test.after(async ({ db }) => {
  await db.drop()
})

// Every kernel a test makes, closed even when its assertions fail.
const kernels: Kernel[] = []
test.after.each(async () => {
  for (const kernel of kernels.splice(0)) await kernel.close()
})

/** An app with the routes the span table covers: statements, a failed one, errors, a template. */
function app(db: TestDatabase, telemetryOptions?: TelemetryOptions, lines: string[] = []): Kernel {
  const kernel = createKernel({ logger: silentLogger, config: { development: false } })
  kernels.push(kernel)
  kernel.register(logging, { destination: { write: (line: string) => void lines.push(line) } })
  kernel.register(database, { url: db.url, entities: [] })
  if (telemetryOptions !== undefined) kernel.register(telemetry, telemetryOptions)
  kernel.router.get('three', async (ctx) => {
    const database = ctx.kernel.plugin('database')
    for (const n of [1, 2, 3]) await database.runStatement({ sql: 'select ? as n', bindings: [n] })
    ctx.kernel.plugin('logging').logger(ctx).info('ran three')
    return { ok: true }
  })
  kernel.router.get('broken', async (ctx) => {
    await ctx.kernel
      .plugin('database')
      .runStatement({ sql: 'select * from no_such_table', bindings: [] })
      .catch(() => undefined)
    throw new HttpError(503, { error: 'unavailable', message: 'no table' })
  })
  kernel.router.get('items/{id}', (ctx) => ({ id: ctx.params.id }))
  kernel.router.get('fail', () => json({ error: 'down' }, 500))
  kernel.router.get('boom', () => {
    throw new Error('kaboom')
  })
  kernel.router.get('ping', () => ({ pong: true }))
  return kernel
}

/** The requests the comparison runs: every row of the span table, and the trace context. */
const requests = [
  { url: '/three', headers: { host: 'shop.test:8080', 'user-agent': 'probe/1.0' } },
  { url: '/items/42?page=2&token=tok-leak&q=red+shoes' },
  { url: '/fail' },
  { url: '/boom' },
  { url: '/broken' },
  { url: '/nowhere' },
  { method: 'PROPFIND', url: '/ping' },
  {
    url: '/ping',
    headers: {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=opaque',
    },
  },
] as const

/**
 * A span with its ids replaced by their places: the trace by the order of first appearance, the
 * span and its parent by their index in `spans` (a remote parent kept as it is). What is left must
 * be identical between the two paths: names, kinds, attributes, status, events, times.
 */
function normalized(spans: readonly ReadableSpan[]) {
  const index = new Map(spans.map((s, i) => [s.spanContext().spanId, i]))
  const traces: string[] = []
  return spans.map((s) => {
    const { traceId, spanId, traceFlags, traceState } = s.spanContext()
    if (!traces.includes(traceId)) traces.push(traceId)
    assert.match(spanId, /^[0-9a-f]{16}$/)
    assert.match(traceId, /^[0-9a-f]{32}$/)
    const parent = s.parentSpanContext
    return {
      trace: parent?.isRemote === true ? traceId : traces.indexOf(traceId),
      span: index.get(spanId),
      traceFlags,
      traceState: traceState?.serialize(),
      parent:
        parent === undefined
          ? undefined
          : parent.isRemote === true
            ? parent
            : { ...parent, spanId: index.get(parent.spanId), traceId: traces.indexOf(traceId) },
      name: s.name,
      kind: s.kind,
      attributes: s.attributes,
      status: s.status,
      events: s.events,
      startTime: s.startTime,
      endTime: s.endTime,
      duration: s.duration,
      links: s.links,
      ended: s.ended,
      scope: s.instrumentationScope,
      dropped: [s.droppedAttributesCount, s.droppedEventsCount, s.droppedLinksCount],
    }
  })
}

for (const phaseSpans of [true, false]) {
  test(`projects the same spans as the SDK path from the same requests (phaseSpans ${phaseSpans})`, async ({
    db,
  }) => {
    const kernel = app(db)
    // Both paths on each request, as the plugin drives either.
    const traces = traceBothPaths(kernel, {
      service: 'compared',
      phaseSpans,
      knownMethods: ['GET', 'POST'],
    })
    await kernel.boot()
    const statuses: number[] = []
    for (const request of requests) statuses.push((await kernel.inject(request)).status)
    assert.equal(statuses, [200, 200, 500, 500, 503, 404, 405, 200])
    await traces.settle()
    const sdkSpans = traces.sdkSpans()
    const recordSpans = traces.recordSpans()
    assert.equal(normalized(recordSpans), normalized(sdkSpans))
    // The comparison covered every kind of span and the cases of the table.
    const kinds = new Set(sdkSpans.map((s) => s.kind))
    assert.equal(
      [SpanKind.SERVER, SpanKind.CLIENT, SpanKind.INTERNAL].filter((k) => kinds.has(k)),
      phaseSpans
        ? [SpanKind.SERVER, SpanKind.CLIENT, SpanKind.INTERNAL]
        : [SpanKind.SERVER, SpanKind.CLIENT],
    )
    const names = recordSpans.filter((s) => s.kind === SpanKind.SERVER).map((s) => s.name)
    assert.equal(names, [
      'GET /three',
      'GET /items/{id}',
      'GET /fail',
      'GET /boom',
      'GET /broken',
      'GET',
      'HTTP',
      'GET /ping',
    ])
    assert.ok(recordSpans.some((s) => s.events.length === 1 && s.status.message === 'kaboom'))
    assert.ok(recordSpans.some((s) => s.kind === SpanKind.CLIENT && s.status.code === 2))
    assert.is(recordSpans[0]?.resource.attributes['service.name'], 'compared')
  })
}

/** A kernel with one route and the telemetry plugin alone (no database): the queue's tests. */
function pingApp(options: TelemetryOptions, logger = createMemoryLogger()) {
  const kernel = createKernel({ logger, config: { development: false } })
  kernels.push(kernel)
  kernel.register(telemetry, options)
  kernel.router.get('ping', () => ({ pong: true }))
  return { kernel, logger }
}

/** An exporter that keeps each batch, answering as `answer` says (success by default). */
class RecordingExporter {
  readonly batches: SpanRecord[][] = []
  shutdowns = 0
  answer: 'success' | 'failure' | 'throw' | 'never' = 'success'
  #waiting: Array<(batch: SpanRecord[]) => void> = []
  export(spans: SpanRecord[], done: (result: ExportResult) => void): void {
    this.batches.push(spans)
    for (const resolve of this.#waiting.splice(0)) resolve(spans)
    if (this.answer === 'throw') throw new Error('exporter bug')
    if (this.answer === 'failure')
      done({ code: ExportResultCode.FAILED, error: new Error('collector down') })
    if (this.answer === 'success') done({ code: ExportResultCode.SUCCESS })
  }
  async shutdown(): Promise<void> {
    this.shutdowns++
  }
  get spans(): SpanRecord[] {
    return this.batches.flat()
  }
  /** The next batch it receives. */
  nextBatch(): Promise<SpanRecord[]> {
    return new Promise((resolve) => this.#waiting.push(resolve))
  }
}

/** The telemetry plugin's span queue: spans queued, exported, dropped, failed so far. */
const spanQueue = (kernel: Kernel) => kernel.plugin('telemetry').spanQueue()

const logLines = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>)

test('traces requests through the exporter option, the trace id in their log lines', async ({
  db,
}) => {
  const exporter = new InMemorySpanExporter()
  const lines: string[] = []
  const kernel = app(db, { exporter }, lines)
  await kernel.boot()
  assert.is(kernel.plugin('telemetry').tracing, true)
  assert.is((await kernel.inject('/three')).status, 200)
  await kernel.plugin('telemetry').flush()
  const spans = exporter.getFinishedSpans()
  const server = spans.find((s) => s.kind === SpanKind.SERVER)!
  assert.is(server.name, 'GET /three')
  const action = spans.find((s) => s.name === 'action')!
  assert.is(action.parentSpanContext?.spanId, server.spanContext().spanId)
  const statements = spans.filter((s) => s.kind === SpanKind.CLIENT)
  assert.equal(
    statements.map((s) => [s.name, s.parentSpanContext?.spanId]),
    Array(3).fill(['SELECT', action.spanContext().spanId]),
  )
  for (const s of spans) assert.is(s.spanContext().traceId, server.spanContext().traceId)
  assert.is(new Set(spans.map((s) => s.spanContext().spanId)).size, spans.length)
  const line = logLines(lines).find((l) => l.msg === 'ran three')
  assert.is(line?.trace_id, server.spanContext().traceId)
  assert.is(line?.span_id, server.spanContext().spanId)
  // The default resource: the app's name as the service, fw as the telemetry SDK.
  assert.equal(server.resource.attributes, {
    'service.name': 'fw',
    'telemetry.sdk.language': 'nodejs',
    'telemetry.sdk.name': 'fw',
    'telemetry.sdk.version': '0.1.0',
  })
  assert.equal(spanQueue(kernel), { queued: 0, exported: spans.length, dropped: 0, failed: 0 })
})

test("samples new traces by the SDK's ratio rule and follows a caller's sampled flag", async () => {
  const exporter = new RecordingExporter()
  const lines: string[] = []
  const kernel = createKernel({ logger: silentLogger, config: { development: false } })
  kernels.push(kernel)
  kernel.register(logging, { destination: { write: (line: string) => void lines.push(line) } })
  kernel.register(telemetry, { exporter, sampleRatio: 0.5, phaseSpans: false })
  kernel.router.get('ping', (ctx) => {
    ctx.kernel.plugin('logging').logger(ctx).info('pinged')
    return { pong: true }
  })
  await kernel.boot()
  for (let i = 0; i < 40; i++) await kernel.inject('/ping')
  await kernel.plugin('telemetry').flush()
  const logged = logLines(lines)
    .filter((l) => l.msg === 'pinged')
    .map((l) => String(l.trace_id))
  assert.is(logged.length, 40, 'every request has a trace id, sampled or not')
  const sdk = new TraceIdRatioBasedSampler(0.5)
  const expected = logged.filter(
    (id) => sdk.shouldSample(ROOT_CONTEXT, id).decision === SamplingDecision.RECORD_AND_SAMPLED,
  )
  const exported = exporter.spans.map((s) => s.spanContext().traceId)
  assert.equal(exported, expected)
  assert.ok(expected.length > 0 && expected.length < 40, `${expected.length} of 40 sampled`)
  // A caller's decision wins over the ratio, both ways; its trace id is kept in the log either way.
  const parent = (flags: string) => ({
    headers: { traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-${flags}` },
  })
  exporter.batches.length = 0
  lines.length = 0
  for (const flags of ['00', '01', '00', '01'])
    await kernel.inject({ url: '/ping', ...parent(flags) })
  await kernel.plugin('telemetry').flush()
  assert.is(exporter.spans.length, 2)
  for (const s of exporter.spans) {
    assert.is(s.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736')
    assert.equal(s.parentSpanContext?.spanId, '00f067aa0ba902b7')
    assert.is(s.parentSpanContext?.isRemote, true)
  }
  assert.equal(
    new Set(logLines(lines).map((l) => l.trace_id)),
    new Set(['4bf92f3577b34da6a3ce929d0e0e4736']),
  )
})

test('exports a batch once maxExportBatchSize spans wait, the rest after scheduledDelayMillis', async () => {
  const exporter = new RecordingExporter()
  const { kernel } = pingApp({
    exporter,
    phaseSpans: false,
    batch: { maxExportBatchSize: 3, scheduledDelayMillis: 60_000 },
  })
  await kernel.boot()
  for (let i = 0; i < 7; i++) await kernel.inject('/ping')
  await new Promise((resolve) => setImmediate(resolve))
  // One span per request: two full batches went at once, the seventh waits for the delay.
  assert.equal(
    exporter.batches.map((b) => b.length),
    [3, 3],
  )
  assert.is(spanQueue(kernel)?.queued, 1)
  // Fewer than a batch: they go after the delay.
  const later = new RecordingExporter()
  const soon = pingApp({ exporter: later, batch: { scheduledDelayMillis: 1 } }).kernel
  await soon.boot()
  const exported = later.nextBatch()
  await soon.inject('/ping')
  // The queue's timer does not keep a process alive (a server's socket does): this test does.
  const alive = setInterval(() => {}, 1000)
  const batch = await exported.finally(() => clearInterval(alive))
  assert.is(batch.find((s) => s.kind === SpanKind.SERVER)?.name, 'GET /ping')
})

test('drops whole requests when the queue is full, counts them and keeps answering', async () => {
  const exporter = new RecordingExporter()
  exporter.answer = 'never'
  const { kernel, logger } = pingApp({
    exporter,
    phaseSpans: false,
    // The export in flight never answers: 2 s (not the default 30) is how long the close waits.
    batch: {
      maxQueueSize: 5,
      maxExportBatchSize: 2,
      scheduledDelayMillis: 60_000,
      exportTimeoutMillis: 2000,
    },
  })
  await kernel.boot()
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) {
    statuses.push((await kernel.inject('/ping')).status)
    await new Promise((resolve) => setImmediate(resolve))
  }
  assert.equal(statuses, Array(10).fill(200))
  // The first two went to the exporter, which never answers; five wait; three were dropped.
  assert.equal(spanQueue(kernel), { queued: 5, exported: 0, dropped: 3, failed: 0 })
  const warnings = logger.entries.filter((e) => e.level === 'warn')
  assert.is(warnings.length, 1, 'one warning for the episode, not one per request')
  assert.match(warnings[0]!.message, 'span queue is full (5 spans)')
  // Closing waits exportTimeoutMillis in all (not one timeout per batch), then drops what is left.
  await kernel.close()
  const after = spanQueue(kernel)!
  assert.is(after.queued, 0)
  assert.is(after.exported, 0)
  assert.ok(after.dropped >= 6, JSON.stringify(after))
  const closing = logger.entries.filter((e) => e.level === 'error')
  assert.match(closing.at(-1)!.message, 'exporting spans failed')
  assert.match(
    String((closing.at(-1)!.context?.error as Error | undefined)?.message),
    'did not finish within exportTimeoutMillis (2000 ms)',
  )
})

for (const answer of ['throw', 'failure', 'never'] as const) {
  test(`keeps requests whole when the exporter ${answer === 'never' ? 'never answers' : answer === 'throw' ? 'throws' : 'reports a failure'}, and says so once`, async () => {
    const exporter = new RecordingExporter()
    exporter.answer = answer
    const { kernel, logger } = pingApp({
      exporter,
      phaseSpans: false,
      batch: { maxExportBatchSize: 1, exportTimeoutMillis: 20 },
    })
    await kernel.boot()
    for (let i = 0; i < 3; i++) {
      const res = await kernel.inject('/ping')
      assert.is(res.status, 200)
      assert.equal(res.json(), { pong: true })
    }
    await kernel.plugin('telemetry').flush()
    assert.equal(spanQueue(kernel), { queued: 0, exported: 0, dropped: 0, failed: 3 })
    const errors = logger.entries.filter((e) => e.level === 'error')
    assert.is(errors.length, 1, JSON.stringify(errors))
    assert.match(errors[0]!.message, 'exporting spans failed')
  })
}

test('exports what waits and shuts the exporter down when the kernel closes', async () => {
  const exporter = new RecordingExporter()
  const { kernel } = pingApp({ exporter, batch: { scheduledDelayMillis: 60_000 } })
  await kernel.boot()
  for (let i = 0; i < 4; i++) await kernel.inject('/ping')
  assert.is(exporter.batches.length, 0)
  await kernel.close()
  assert.equal(
    exporter.spans.filter((s) => s.kind === SpanKind.SERVER).map((s) => s.name),
    Array(4).fill('GET /ping'),
  )
  assert.is(exporter.shutdowns, 1)
})

test('hands standard exporters records they take: OTLP over HTTP, the console', async ({ db }) => {
  const bodies: string[] = []
  const collector: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString())
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = collector.address() as { port: number }
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` })
    const kernel = createKernel({
      logger: silentLogger,
      config: { development: false, app: { name: 'shop' } },
      env: { OTEL_SERVICE_NAME: 'shop-api' },
    })
    kernels.push(kernel)
    kernel.register(database, { url: db.url, entities: [] })
    kernel.register(telemetry, { exporter })
    kernel.router.get('items/{id}', async (ctx) => {
      await ctx.kernel.plugin('database').runStatement({ sql: 'select 1 as one', bindings: [] })
      return { id: ctx.params.id }
    })
    await kernel.boot()
    await kernel.inject('/items/7')
    await kernel.close() // flushes and shuts the exporter down
    assert.is(bodies.length, 1)
    const sent = JSON.parse(bodies[0]!) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
        scopeSpans: Array<{
          scope: { name: string; version: string }
          spans: Array<{ name: string; kind: number; spanId: string; parentSpanId?: string }>
        }>
      }>
    }
    const [resourceSpans] = sent.resourceSpans
    const service = resourceSpans?.resource.attributes.find((a) => a.key === 'service.name')
    assert.is(service?.value.stringValue, 'shop-api')
    const [scopeSpans] = resourceSpans!.scopeSpans
    assert.equal(scopeSpans?.scope, { name: 'fw', version: '0.1.0' })
    const spans = scopeSpans!.spans
    const server = spans.find((s) => s.name === 'GET /items/{id}')!
    assert.is(server.kind, 2, 'SERVER, in OTLP numbering')
    const select = spans.find((s) => s.name === 'SELECT')!
    const parent = spans.find((s) => s.spanId === select.parentSpanId)
    assert.ok(parent !== undefined && parent.parentSpanId === server.spanId, parent?.name)
  } finally {
    await new Promise((resolve) => collector.close(resolve))
  }
  const printed: unknown[] = []
  const dir = console.dir
  console.dir = (value: unknown) => void printed.push(value)
  try {
    const { kernel } = pingApp({ exporter: new ConsoleSpanExporter() })
    await kernel.boot()
    await kernel.inject('/ping')
    await kernel.plugin('telemetry').flush()
  } finally {
    console.dir = dir
  }
  const names = (printed as Array<{ name: string }>).map((p) => p.name)
  assert.ok(names.includes('GET /ping'), names.join(', '))
})

test('refuses options it cannot take, with coded errors', async () => {
  const cases: Array<[TelemetryOptions, string, string]> = [
    [
      { exporter: new RecordingExporter(), sampleRatio: 1.5 },
      'FW_ERR_TELEMETRY_OPTION_INVALID',
      'sampleRatio is 1.5',
    ],
    [
      { exporter: new RecordingExporter(), batch: { maxQueueSize: 0 } },
      'FW_ERR_TELEMETRY_OPTION_INVALID',
      'batch.maxQueueSize is 0',
    ],
    [
      { exporter: new RecordingExporter(), batch: { maxQueueSize: 10, maxExportBatchSize: 20 } },
      'FW_ERR_TELEMETRY_OPTION_INVALID',
      'batch.maxExportBatchSize is 20; give at most maxQueueSize (10)',
    ],
    [
      { exporter: {} as unknown as RecordingExporter },
      'FW_ERR_TELEMETRY_OPTION_INVALID',
      'exporter is {}',
    ],
    [
      { exporter: new RecordingExporter(), tracerProvider: new BasicTracerProvider() },
      'FW_ERR_TELEMETRY_TRACE_PATHS',
      'both an exporter and a tracerProvider',
    ],
  ]
  for (const [options, code, message] of cases) {
    const { kernel } = pingApp(options)
    const error = await kernel.boot().then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    )
    assert.is(error?.code, code, JSON.stringify(options))
    assert.match(String(error?.message), message)
  }
})

test.run()
