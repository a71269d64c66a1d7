// The floor OpenTelemetry's SDK sets under bench/telemetry.ts: what the SDK alone (no fw code)
// spends on the spans the telemetry plugin makes for `GET /_demo/ping`, a server span with the
// plugin's attributes and two phase children (`routing`, `action`), and on the server span
// alone (`phaseSpans: false`); then the same spans made by the plugin's own projection
// (`startServerSpan`, `finishTrace`) from a request's event log as the ping records it, so that
// the difference is what fw adds to the SDK's floor. Same SDK setup as bench/telemetry.ts: BasicTracerProvider +
// BatchSpanProcessor, an exporter that drops each batch; the event loop turns every 500 spans
// so the processor exports as it would under load (a tight loop would fill its queue and drop).
// Interleaved rounds against an empty baseline loop; CPU µs per request, medians.
// Run: node --import tsx -C fw-source bench/otel-floor.ts   FW_BENCH_OTEL_ROUNDS=<n>
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api'
import { ExportResultCode } from '@opentelemetry/core'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { performance } from 'node:perf_hooks'
import { EventLog, silentLogger, type RequestContext } from 'fw'
import { KNOWN_METHODS } from '../plugins/telemetry/method.js'
import { createRecordTracing } from '../plugins/telemetry/record-tracing.js'
import { DEFAULT_LIMITS } from '../plugins/telemetry/tracing-options.js'
import type { TraceSettings } from '../plugins/telemetry/span-attributes.js'
import { finishTrace, startServerSpan } from '../plugins/telemetry/trace.js'
import { formatRatio, median } from './lib/stats.js'

const provider = new BasicTracerProvider({
  spanProcessors: [
    new BatchSpanProcessor({
      export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
      shutdown: async () => {},
    }),
  ],
})
const tracer = provider.getTracer('fw', '0.1.0')
const origin = performance.timeOrigin

function serverSpan(i: number) {
  const span = tracer.startSpan(
    'GET',
    {
      kind: SpanKind.SERVER,
      startTime: origin + i,
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/_demo/ping',
        'url.scheme': 'http',
        'client.address': '127.0.0.1',
        'server.address': '127.0.0.1',
        'server.port': 3000,
        'user_agent.original': 'wrk',
      },
    },
    ROOT_CONTEXT,
  )
  span.spanContext()
  return span
}

function finish(span: ReturnType<typeof serverSpan>, i: number) {
  span.setAttribute('http.route', '/_demo/ping')
  span.updateName('GET /_demo/ping')
  span.setAttribute('http.response.status_code', 200)
  span.end(origin + i + 0.02)
}

const variants: Record<string, (i: number) => void> = {
  baseline: (i) => {
    if (i < 0) throw new Error('unreachable')
  },
  'server span': (i) => finish(serverSpan(i), i),
  'server + 2 phases': (i) => {
    const server = serverSpan(i)
    const parent = trace.setSpan(context.active(), server)
    for (const name of ['routing', 'action']) {
      tracer.startSpan(name, { startTime: origin + i }, parent).end(origin + i + 0.01)
    }
    finish(server, i)
  },
}

// The same spans made by the telemetry plugin's own projection from a request's event log, as the
// ping records it: what fw adds to the SDK's floor.
function pingRequest(): RequestContext {
  const log = new EventLog()
  log.record('request.received', { method: 'GET', path: '/_demo/ping' }, 0)
  log.record('phase.completed', { name: 'routing', start: 0.001, duration: 0.001 }, 0.002)
  log.record(
    'route.matched',
    { method: 'GET', path: '_demo/ping', name: 'demo.ping', handler: 'ping', params: {} },
    0.002,
  )
  log.record('phase.completed', { name: 'action', start: 0.002, duration: 0.003 }, 0.005)
  log.record('response.prepared', { status: 200 }, 0.006)
  const headers = { host: '127.0.0.1:3000', 'user-agent': 'wrk' }
  return {
    method: 'GET',
    path: '/_demo/ping',
    querystring: '',
    secure: false,
    ip: '127.0.0.1',
    headers,
    log,
    state: {},
  } as unknown as RequestContext
}
const knownMethods = new Set(KNOWN_METHODS)
const SERVER_ONLY: TraceSettings = { phaseSpans: false, knownMethods }
const PHASES: TraceSettings = { phaseSpans: true, knownMethods }
// The cost of building that request, subtracted from the fw variants' figures.
variants['request alone'] = () => {
  pingRequest()
}
variants['fw: server span'] = () => {
  const ctx = pingRequest()
  finishTrace(tracer, startServerSpan(tracer, ctx, SERVER_ONLY), ctx, 200, 0.007, SERVER_ONLY)
}
variants['fw: + 2 phases'] = () => {
  const ctx = pingRequest()
  finishTrace(tracer, startServerSpan(tracer, ctx, PHASES), ctx, 200, 0.007, PHASES)
}

// The same spans as fw's own records (the plugin's `exporter` path), batched to an exporter that
// drops each batch: no SDK object at all.
function recordTracing(settings: TraceSettings) {
  return createRecordTracing({
    exporter: {
      export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
      shutdown: async () => {},
    },
    sampleRatio: 1,
    limits: DEFAULT_LIMITS,
    origin: {
      resource: { attributes: { 'service.name': 'bench' } },
      scope: { name: 'fw', version: '0.1.0', schemaUrl: undefined },
    },
    settings,
    logger: silentLogger,
  })
}
const recordsServerOnly = recordTracing(SERVER_ONLY)
const recordsPhases = recordTracing(PHASES)
variants['records: server span'] = () => {
  const ctx = pingRequest()
  recordsServerOnly.start(ctx)
  recordsServerOnly.finish(ctx, 200, 0.007)
}
variants['records: + 2 phases'] = () => {
  const ctx = pingRequest()
  recordsPhases.start(ctx)
  recordsPhases.finish(ctx, 200, 0.007)
}

const PER_ROUND = 100_000
async function run(fn: (i: number) => void): Promise<number> {
  const started = process.cpuUsage()
  for (let i = 0; i < PER_ROUND; i++) {
    fn(i)
    if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve))
  }
  const used = process.cpuUsage(started)
  return (used.user + used.system) / PER_ROUND
}

const rounds = Number(process.env.FW_BENCH_OTEL_ROUNDS ?? 9)
const names = Object.keys(variants)
const figures = new Map<string, number[]>(names.map((n) => [n, []]))
for (const name of names) await run(variants[name]!) // warm-up
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round) % names.length]!
    figures.get(name)!.push(await run(variants[name]!))
  }
}
await provider.shutdown()

const base = median(figures.get('baseline')!)
const request = median(figures.get('request alone')!)
const ping = Number(process.env.FW_BENCH_PING_US ?? 12)
console.log(
  `otel floor: the SDK's own CPU per request, ${rounds} interleaved rounds of ${PER_ROUND.toLocaleString('en-US')}`,
)
for (const name of names.filter((n) => n !== 'baseline' && n !== 'request alone')) {
  const cost = median(figures.get(name)!) - (name.includes(':') ? request : base)
  console.log(
    `    ${name.padEnd(18)} ${cost.toFixed(2)} µs   best ratio possible on a ${ping} µs route: ${formatRatio(ping / (ping + cost))}`,
  )
}
