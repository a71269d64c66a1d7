import { definePlugin, type Kernel } from 'fw'
import { minUsertype } from 'fw/plugins/api'
import { declareApiRoutes } from './api/routes.js'
import { DemoController } from './controllers/demo-controller.js'
import { array, empty, error, fragment, ping, redirectHome, text } from './controllers/demo.js'
import { log } from './controllers/demo-log.js'
import { measureDemo } from './controllers/demo-measure.js'
import { favicon } from './controllers/favicon.js'
import { queries } from './controllers/demo-queries.js'
import { home } from './controllers/home.js'
import { declareListRoutes } from './list/routes.js'

/** The lowest usertype that may change products through the API: the seeded `editor`'s. */
const EDITOR_USERTYPE = 50

function declareRoutes(kernel: Kernel): void {
  const router = kernel.router
  router.get('/', home).name('home')
  router.get('favicon.ico', favicon(kernel)).name('favicon')

  router.group({ prefix: '_demo', name: 'demo.' }, (r) => {
    r.get('ping', ping).name('ping')
    r.get('array', array).name('array')
    r.get('text', text).name('text')
    r.get('fragment', fragment).name('fragment')
    r.get('empty', empty).name('empty')
    r.get('redirect', redirectHome).name('redirect')
    r.get('error', error).name('error')
    r.get('queries', queries).name('queries')
    r.get('log', log).name('log')
    r.get('measure', measureDemo).name('measure')
  })

  router.classic('demo', DemoController)
  declareApiRoutes(kernel) // api/v1 (products, me), api/v2
  declareListRoutes(kernel) // the products page and its table
}

declare module 'fw' {
  interface FwConfig {
    playground: {
      /**
       * Print every request's trace on the console (OpenTelemetry's console exporter, through the
       * telemetry plugin). Environment: `FW_CONSOLE_TRACES=1`.
       */
      console_traces: boolean
      /**
       * Requests a client address may make to the API in a minute (the `api` rate limit).
       * Environment: `FW_API_LIMIT` (load tests raise it).
       */
      api_limit: number
    }
  }
}

/** The playground's own plugin: the `api` middleware group and its routes. */
export default definePlugin({
  name: 'playground',
  dependsOn: ['database', 'api'],
  config: {
    defaults: { playground: { console_traces: false, api_limit: 1000 } },
    schema: { 'playground.console_traces': 'boolean', 'playground.api_limit': 'integer' },
    env: {
      'playground.console_traces': 'FW_CONSOLE_TRACES',
      'playground.api_limit': 'FW_API_LIMIT',
    },
  },
  setup(kernel) {
    // The `api` middleware group of `/api/v1` and `/api/v2`: the API pipeline (CORS, content
    // type, API key) of the api plugin.
    kernel.middleware('api', kernel.plugin('api').pipeline)
    // `editor`: what changes the catalogue needs after the pipeline, the application's API key or
    // a signed-in user of usertype ≥ 50 (the seeded `editor`); reads need only the pipeline.
    kernel.middleware('editor', minUsertype(EDITOR_USERTYPE))
    declareRoutes(kernel)
  },
})
