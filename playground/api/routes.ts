// The playground's API routes: `api/v1` (the products resource, its DataTables
// endpoint, `me`) and `api/v2`, each route's schema from ./schemas.ts.
import type { Kernel } from 'fw'
import { me } from './controllers/me.js'
import { ProductsController } from './controllers/products.js'
import { flatPage, flatPageQuery, identity, productDatatable, productSchemas } from './schemas.js'

/**
 * Declares the API routes; `api` is the middleware group of the API pipeline, behind the `api`
 * rate limit (`limit:api`). `json: true`: every
 * error under `/api/v1` and `/api/v2` (an unknown path, a missing product, a wrong method) is JSON
 * unless the client ranks `text/html` first.
 */
export function declareApiRoutes(kernel: Kernel): void {
  const router = kernel.router
  router.group(
    { prefix: 'api/v1', middleware: ['limit:api', 'api'], name: 'v1.', json: true },
    (r) => {
      r.get('products/datatable', [ProductsController, 'datatable'])
        .name('products.datatable')
        .schema(productDatatable)
      // `{id}` is bound to the entity: a missing id is a 404 before the controller runs. Declared
      // twice so that only the writes get the `editor` guard (API key, or usertype ≥ 50).
      r.resource('products', ProductsController)
        .only('index', 'show')
        .bind('Product')
        .schemas(productSchemas)
      r.resource('products', ProductsController)
        .only('store', 'update', 'destroy')
        .middleware('editor')
        .bind('Product')
        .schemas(productSchemas)
    },
  )
  router
    .get('api/v1/me', me)
    .middleware('limit:api', 'cors', 'contentType', 'unified')
    .name('v1.me')
    .schema({ responses: { 200: { description: 'The current identity.', schema: identity } } })
  router.group(
    { prefix: 'api/v2', middleware: ['limit:api', 'api'], name: 'v2.', json: true },
    (r) => {
      r.get('products', [ProductsController, 'flatIndex'])
        .name('products.index')
        .schema({
          query: flatPageQuery,
          responses: { 200: { description: 'One page of products.', schema: flatPage } },
        })
    },
  )
}
