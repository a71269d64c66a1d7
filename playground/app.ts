import { createRequire } from 'node:module'
import { basename, dirname, join, resolve } from 'node:path'
import type * as OtelSdk from '@opentelemetry/sdk-trace-base'
import { fileURLToPath } from 'node:url'
import { createKernel, type AppFactory, type Kernel, type Logger } from 'fw'
import type { CheckedEntry, PluginEntry } from 'fw/testing'
import admin from 'fw/plugins/admin'
import limits from 'fw/plugins/limits'
import api from 'fw/plugins/api'
import auth from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import debug from 'fw/plugins/debug'
import health from 'fw/plugins/health'
import list from 'fw/plugins/list'
import openapi from 'fw/plugins/openapi'
import telemetry, { type TelemetryOptions } from 'fw/plugins/telemetry'
import uploads from 'fw/plugins/uploads'
import logging from 'fw/plugins/logging'
import realtime from 'fw/plugins/realtime'
import views from 'fw/plugins/views'
import { DEMO_APPLICATION } from './demo-data.js'
import { seedDemoUsers } from './auth/seed-users.js'
import { entities } from './entities/index.js'
import { registerJobs } from './imports/import-job.js'
import livePlayground from './list/live-products.js'
import playground from './plugin.js'
import { seed } from './seed.js'

const here = dirname(fileURLToPath(import.meta.url))
/**
 * The playground's root: this folder, also when running compiled from `dist/playground/` (where
 * `var/` and `.env` do not live).
 */
export const root = basename(dirname(here)) === 'dist' ? join(here, '..', '..', 'playground') : here

/**
 * The database when neither `DATABASE_URL` nor `FW_CONFIG` names one: embedded PGlite persisted in
 * `playground/var/db` (absolute, so it does not depend on the working directory).
 */
export const defaultDatabaseUrl = `pglite://${join(root, 'var', 'db')}`

/**
 * Options of the playground's factory: the `AppFactory` options, a logger for tests, and extra
 * plugins (a plugin under development, tried on the playground).
 */
export interface PlaygroundOptions<E extends readonly PluginEntry[] = readonly PluginEntry[]> {
  /** The environment to read (`PORT`, `FW_CONFIG`, `NODE_ENV`, …). Default: `process.env`. */
  env?: NodeJS.ProcessEnv
  /**
   * Where the kernel reports failures. Default: the logging plugin, JSON lines in
   * `playground/var/log/playground.log` (when pino, its optional peer, is installed; else the
   * kernel's own JSON lines on stderr); a test passes its own and no log file is written.
   */
  logger?: Logger
  /**
   * Extra plugins with their options, registered after the playground's own (so they may depend
   * on any of them), each plugin's options type-checked as `kernel.register` checks them.
   */
  plugins?: E & { readonly [K in keyof E]: CheckedEntry<E[K]> }
}

/**
 * The playground app: its config (overridable through the environment, `FW_CONFIG` last), the
 * logging plugin (`var/log/playground.log`), the views plugin (`views/*.eta`), the database plugin
 * with the playground's entities, migrations and demo seed, the `playground` plugin with the
 * demo and API routes, then the extra `plugins` given. `fw` and `npm run playground` call it; a
 * plugin author imports it as `fw/playground`.
 *
 * @example
 * const kernel = createApp({
 *   env: { DATABASE_URL: 'pglite://memory' },
 *   plugins: [[greeter, { prefix: 'hello' }]],
 * })
 * const res = await kernel.inject('/hello/ada')
 */
export default function createApp<const E extends readonly PluginEntry[] = readonly []>({
  env = process.env,
  logger,
  plugins,
}: PlaygroundOptions<E> = {}): Kernel {
  const kernel = createKernel({
    root,
    env,
    logger,
    config: {
      app: { name: 'playground' },
      features: ['debug', 'DevPanel'],
      development: env.NODE_ENV !== 'production',
      api: { cors_origins: ['*'], prefix: '/api/v1' },
      // The administration area, off until `admin.prefix` is set (playground/README.md).
      admin: { theme: 'admin', min_usertype: 50, default_controller: 'dashboard', area: 'Admin' },
      // Under `DATABASE_URL` and `FW_CONFIG`, which replace it.
      database: { url: defaultDatabaseUrl },
      // The rate limits count in memory, per process: a statement per API request would move the
      // products benchmark and the statement counts its tests read. Several instances share counts
      // with `FW_CONFIG='{"limits":{"store":"database"}}'` (plugins/limits/README.md).
      limits: { store: 'memory', redis_url: undefined },
      // Product images (the area's `images` controller), served back under `/media`.
      uploads: { dir: 'var/uploads' },
    },
  })
  if (logger === undefined && pinoInstalled()) kernel.register(logging)
  kernel
    .register(views)
    // The toolbar's API tab reads the document the openapi plugin serves and sends to the api
    // plugin's prefix (both plugins tell it) with the demo application's key (development only).
    .register(debug, { browser: { apiKey: DEMO_APPLICATION.apiKey } })
    .register(database, {
      entities,
      // Imported when the database opens, not when the app loads (keeps `fw route:list` fast).
      migrations: () => import('./migrations/index.js').then((m) => m.migrations),
      seed,
    })
    .register(auth, { seed: seedDemoUsers, loginMiddleware: ['limit:login'] })
    .register(api, {})
    .register(list)
    .register(health)
    .register(playground)
    .register(openapi, { title: 'playground API' })
    // The area's controllers beside this module (compiled `.js` under dist/), its views in
    // `playground/Admin/views`.
    .register(admin, { controllers: join(here, 'Admin', 'controllers') })
    .register(uploads)
    // Traces on the console when `playground.console_traces` is on (the playground's slice, just
    // resolved by registering it); metrics at `/metrics` when `telemetry.metrics` is on.
    .register(telemetry, consoleTraces(kernel.config.playground.console_traces))
  // The API and the sign-in form under rate limits, per client address (`limits.store` above;
  // `playground.api_limit`, the playground's slice, is resolved once its plugin is registered).
  kernel.register(limits, {
    limiters: {
      api: { points: kernel.config.playground.api_limit, duration: 60 },
      login: { points: 20, duration: 60 },
    },
  })
  // Background jobs (the area's product imports), run in this process in development and on
  // PGlite; skipped when pg-boss is not installed (imports/import-job.ts).
  registerJobs(kernel)
  // What the area's `images` controller moved into `uploads.dir`, looked up per request (the
  // folder changes while the app runs).
  kernel.static('media', resolve(root, kernel.config.uploads.dir), { live: true })
  // Server-sent events (`GET /events/{channel}`): the products page's live updates.
  kernel.register(realtime).register(livePlayground)
  for (const [plugin, options] of plugins ?? []) {
    ;(kernel.register as (p: unknown, o: unknown) => Kernel)(plugin, options)
  }
  return kernel
}

/**
 * Whether pino, the logging plugin's optional peer, resolves (not loaded): a plugin author trying
 * `fw/playground` may not have installed it (test/playground/imports-without-packages.test.ts).
 */
function pinoInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino')
    return true
  } catch {
    return false
  }
}

/**
 * The telemetry options of `playground.console_traces`: each request's spans, made by fw, printed
 * by OpenTelemetry's console exporter a tenth of a second after the request (not the default five
 * seconds: someone is watching). The SDK's package, which has that exporter, is the app's to bring
 * (a development dependency of fw): loaded only when on.
 */
function consoleTraces(on: boolean): TelemetryOptions {
  if (!on) return {}
  let sdk: typeof OtelSdk
  try {
    sdk = createRequire(import.meta.url)('@opentelemetry/sdk-trace-base') as typeof OtelSdk
  } catch (cause) {
    throw new Error(
      'playground.console_traces needs @opentelemetry/sdk-trace-base: npm install -D @opentelemetry/sdk-trace-base',
      { cause },
    )
  }
  return { exporter: new sdk.ConsoleSpanExporter(), batch: { scheduledDelayMillis: 100 } }
}

createApp satisfies AppFactory
