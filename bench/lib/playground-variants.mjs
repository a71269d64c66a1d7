// The playground with plugins left out, for `FW_APP=bench/lib/playground-variants.mjs fw serve`
// (bench/playground-http.ts's ablation). The factory registers what playground/app.ts's createApp
// registers, in the same order, with the same config and options, except the plugins named in
// `FW_BENCH_SKIP` (comma-separated: logging, views, debug, database, auth, api, list, health,
// playground, openapi, telemetry, admin, uploads, or `all` for the kernel alone). `FW_BENCH_TRACES=batch` gives the
// telemetry plugin a tracer provider: OpenTelemetry's SDK with a batch span processor and an
// exporter that drops each batch (what the SDK and the projection cost, not a collector's network);
// `batch,no-phases` without phase spans, `batch,sampled` keeping 10% of the traces.
// `FW_BENCH_TRACES=records` gives it the same dropping exporter as its `exporter` option instead: fw
// builds the span records itself and batches them (`records,no-phases`, `records,sampled` alike).
// `GET /_demo/ping` answers the same JSON in every
// variant: declared by the playground plugin when it is registered, else directly, with the
// playground's own `ping` handler. Plugins that depend on a skipped one must be skipped too
// (auth, list and playground depend on database; playground on api): the factory refuses a combination that
// would not boot, and says which plugins to add to the list.
//
// Plain JavaScript, like bare-app.mjs, so that the compiled CLI loads it without registering tsx.
// It imports the compiled playground (`dist/playground/`) when `fw` resolves to dist/, and the
// TypeScript sources when it resolves to them (`-C fw-source`, the CLI through tsx).
import { createKernel } from 'fw'
import admin from 'fw/plugins/admin'
import api from 'fw/plugins/api'
import auth from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import debug from 'fw/plugins/debug'
import health from 'fw/plugins/health'
import list from 'fw/plugins/list'
import logging from 'fw/plugins/logging'
import openapi from 'fw/plugins/openapi'
import telemetry from 'fw/plugins/telemetry'
import uploads from 'fw/plugins/uploads'
import views from 'fw/plugins/views'
import { ExportResultCode } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base'

/** Every plugin createApp registers, in its order (`playground` is the app's own plugin). */
const PLUGINS = /** @type {const} */ ([
  'logging',
  'views',
  'debug',
  'database',
  'auth',
  'api',
  'list',
  'health',
  'playground',
  'openapi',
  'telemetry',
  'admin',
  'uploads',
])

/** What each plugin needs registered (dependsOn, and the routes createApp declares). */
const NEEDS = {
  auth: ['database'],
  list: ['database'],
  playground: ['database', 'api'],
}

const fromSources = import.meta.resolve('fw').endsWith('.ts')
const base = new URL(fromSources ? '../../playground/' : '../../dist/playground/', import.meta.url)
const ext = fromSources ? '.ts' : '.js'
/** @param {string} path */
const load = (path) => import(new URL(path + ext, base).href)
const [app, demoData, seedUsers, entitiesModule, seedModule, pluginModule, demo] =
  await Promise.all([
    load('app'),
    load('demo-data'),
    load('auth/seed-users'),
    load('entities/index'),
    load('seed'),
    load('plugin'),
    load('controllers/demo'),
  ])

/**
 * The skipped plugins from `FW_BENCH_SKIP` (`all`: every one of them).
 * @param {string | undefined} value
 * @returns {Set<string>}
 */
function parseSkip(value) {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (names.includes('all')) return new Set(PLUGINS)
  for (const name of names) {
    if (!PLUGINS.includes(/** @type {(typeof PLUGINS)[number]} */ (name))) {
      throw new Error(`FW_BENCH_SKIP: no plugin '${name}' (there are ${PLUGINS.join(', ')}, all)`)
    }
  }
  const skip = new Set(names)
  for (const [plugin, needs] of Object.entries(NEEDS)) {
    const missing = needs.filter((n) => skip.has(n))
    if (!skip.has(plugin) && missing.length > 0) {
      throw new Error(
        `FW_BENCH_SKIP: without ${missing.join(' and ')}, '${plugin}' cannot be registered: skip it too`,
      )
    }
  }
  return skip
}

/** @type {import('fw').AppFactory} */
export default function createVariant({ env = process.env } = {}) {
  const skip = parseSkip(env.FW_BENCH_SKIP)
  /** @param {string} name */
  const uses = (name) => !skip.has(name)
  const kernel = createKernel({
    root: app.root,
    env,
    config: {
      app: { name: 'playground' },
      features: ['debug', 'DevPanel'],
      development: env.NODE_ENV !== 'production',
      api: { cors_origins: ['*'] },
      admin: { theme: 'admin', min_usertype: 50, default_controller: 'dashboard', area: 'Admin' },
      database: { url: app.defaultDatabaseUrl },
    },
  })
  if (uses('logging')) kernel.register(logging)
  if (uses('views')) kernel.register(views)
  if (uses('debug')) {
    kernel.register(debug, {
      browser: {
        apiPrefix: '/api/v1',
        apiKey: demoData.DEMO_APPLICATION.apiKey,
        openapi: '/api/openapi.json',
      },
    })
  }
  if (uses('database')) {
    kernel.register(database, {
      entities: entitiesModule.entities,
      migrations: () => load('migrations/index').then((m) => m.migrations),
      seed: seedModule.seed,
    })
  }
  if (uses('auth')) kernel.register(auth, { seed: seedUsers.seedDemoUsers })
  if (uses('api')) kernel.register(api, {})
  if (uses('list')) kernel.register(list)
  if (uses('health')) kernel.register(health)
  if (uses('playground')) kernel.register(pluginModule.default)
  else kernel.router.get('_demo/ping', demo.ping).name('demo.ping')
  if (uses('openapi')) kernel.register(openapi, { title: 'playground API' })
  if (uses('telemetry')) {
    const traces = env.FW_BENCH_TRACES ?? ''
    const ratio = traces.includes('sampled') ? 0.1 : 1
    const phaseSpans = !traces.includes('no-phases')
    kernel.register(
      telemetry,
      traces === ''
        ? {}
        : traces.startsWith('records')
          ? { exporter: droppingExporter(), sampleRatio: ratio, phaseSpans }
          : { tracerProvider: batchTracer(ratio), phaseSpans },
    )
  }
  if (uses('admin')) {
    kernel.register(admin, { controllers: new URL('Admin/controllers', base).pathname })
  }
  if (uses('uploads')) kernel.register(uploads)
  return kernel
}

/**
 * An SDK tracer provider with a batch processor whose exporter drops every batch; `ratio` < 1
 * samples that share of the traces (TraceIdRatioBasedSampler).
 * @param {number} ratio
 */
function batchTracer(ratio) {
  const provider = new BasicTracerProvider({
    ...(ratio < 1 ? { sampler: new TraceIdRatioBasedSampler(ratio) } : {}),
    spanProcessors: [new BatchSpanProcessor(droppingExporter())],
  })
  return provider
}

/** A SpanExporter that accepts each batch and drops it (no collector's network in the figures). */
function droppingExporter() {
  return {
    /** @type {(spans: unknown[], done: (result: { code: number }) => void) => void} */
    export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
    shutdown: async () => {},
  }
}
