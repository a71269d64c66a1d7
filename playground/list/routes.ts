// The `/products` page (playground/README.md "Routes"), open to guests, and the read-only endpoint
// its table pages, sorts and searches through: `GET /products/table`, DataTables' server-side
// protocol over the page's own columns.
//
// Why a route of its own rather than the API's `api/v1/products/datatable`: the API lets a browser
// in only with an API key or a signed-in session and its CSRF token (the api plugin's same-origin
// rule), and that rule stays whole for every other caller. The page shows a public catalogue to
// guests, so its table reads a GET-only endpoint that needs no session, changes nothing (no CSRF
// to forge), and whose list source (`productCatalogue`) holds exactly the page's columns: it
// answers nothing the page does not already show. A page key for development only would have made
// the page work in development and break in production.
import { view, type Kernel, type Reply, type RequestContext } from 'fw'
import { datatableReply } from 'fw/plugins/list'
import { productCatalogue, productColumns } from './products-source.js'

/** JSON for an inline `<script>`: `<` escaped so the data can never close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c')
}

/** `GET /products`: the page; its script asks `GET /products/table` for every page it shows. */
export function productPage(ctx: RequestContext): Reply {
  if (ctx.query.theme === 'dark') ctx.state.theme = 'dark'
  const endpoint = ctx.kernel.url('products.table')
  return view('products', {
    endpoint,
    columns: productColumns,
    config: scriptJson({
      endpoint,
      columns: productColumns,
      pageSize: 20,
      events: liveEvents(ctx),
    }),
  })
}

/** Where the page's EventSource listens for product changes (none without the realtime plugin). */
function liveEvents(ctx: RequestContext): string | null {
  return ctx.kernel.hasPlugin('realtime')
    ? ctx.kernel.url('realtime.stream', { channel: 'products' })
    : null
}

/** `GET /products/table`: the page's table, DataTables' server-side protocol, read-only. */
export function productTable(ctx: RequestContext): Promise<Reply> {
  return datatableReply(ctx, productCatalogue)
}

/** Declares the `products` page and its table endpoint. */
export function declareListRoutes(kernel: Kernel): void {
  kernel.router.get('products', productPage).name('products.page')
  kernel.router.get('products/table', productTable).name('products.table')
}
