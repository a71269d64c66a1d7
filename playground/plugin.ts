import { definePlugin, type Kernel, type Middleware } from 'fw'
import { DemoController } from './controllers/demo-controller.js'
import { array, empty, error, fragment, ping, redirectHome, text } from './controllers/demo.js'
import { home } from './controllers/home.js'

/**
 * The `api` middleware group of `/api/v1` and `/api/v2`: a pass-through for now; the API
 * pipeline (CORS, content type, API key) is composed into it as those plugins land.
 */
const api: Middleware = async function api(_ctx, next) {
  return next()
}

function declareRoutes(kernel: Kernel): void {
  const router = kernel.router
  router.get('/', home).name('home')

  router.group({ prefix: '_demo', name: 'demo.' }, (r) => {
    r.get('ping', ping).name('ping')
    r.get('array', array).name('array')
    r.get('text', text).name('text')
    r.get('fragment', fragment).name('fragment')
    r.get('empty', empty).name('empty')
    r.get('redirect', redirectHome).name('redirect')
    r.get('error', error).name('error')
  })

  router.classic('demo', DemoController)

  // The data layer declares the products resources and /me inside these groups.
  router.group({ prefix: 'api/v1', middleware: ['api'], name: 'v1.' }, () => {})
  router.group({ prefix: 'api/v2', middleware: ['api'], name: 'v2.' }, () => {})
}

/** The playground's own plugin: the `api` middleware group and the routes of PLAYGROUND.md. */
export default definePlugin({
  name: 'playground',
  setup(kernel) {
    kernel.middleware('api', api)
    declareRoutes(kernel)
  },
})
