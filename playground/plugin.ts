import { definePlugin, type Kernel } from 'fw'
import type {} from 'fw/plugins/api'
import { DemoController } from './controllers/demo-controller.js'
import { array, empty, error, fragment, ping, redirectHome, text } from './controllers/demo.js'
import { log } from './controllers/demo-log.js'
import { measureDemo } from './controllers/demo-measure.js'
import { queries } from './controllers/demo-queries.js'
import { home } from './controllers/home.js'
import { ProductsController } from './controllers/products.js'
import { declareListRoutes } from './list/routes.js'

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
    r.get('queries', queries).name('queries')
    r.get('log', log).name('log')
    r.get('measure', measureDemo).name('measure')
  })

  router.classic('demo', DemoController)

  // The products resource without its two HTML forms (create, edit), declared route by route so
  // that `{product}` binds to the entity (a missing id is a 404 before the controller runs).
  router.group({ prefix: 'api/v1', middleware: ['api'], name: 'v1.' }, (r) => {
    r.post('products', [ProductsController, 'store']).name('products.store')
    r.get('products/{product}', [ProductsController, 'show'])
      .name('products.show')
      .bind('product', 'Product')
    r.match(['PUT', 'PATCH'], 'products/{product}', [ProductsController, 'update'])
      .name('products.update')
      .bind('product', 'Product')
    r.delete('products/{product}', [ProductsController, 'destroy'])
      .name('products.destroy')
      .bind('product', 'Product')
  })
  router.group({ prefix: 'api/v2', middleware: ['api'], name: 'v2.' }, (r) => {
    r.get('products', [ProductsController, 'flatIndex']).name('products.index')
  })
  declareListRoutes(kernel) // v1.products.index, v1.products.datatable, GET /products
}

/** The playground's own plugin: the `api` middleware group and the routes of PLAYGROUND.md. */
export default definePlugin({
  name: 'playground',
  dependsOn: ['database', 'api'],
  setup(kernel) {
    // The `api` middleware group of `/api/v1` and `/api/v2`: the API pipeline (CORS, content
    // type, API key) of the api plugin.
    kernel.middleware('api', kernel.plugin('api').pipeline)
    declareRoutes(kernel)
  },
})
