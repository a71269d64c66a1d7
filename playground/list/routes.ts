// The playground's list endpoints (PLAYGROUND.md): `GET /api/v1/products` and
// `GET /api/v1/products/datatable` through the list engine, and the `GET /products` page whose
// table pages, sorts and searches through the datatable endpoint.
import { redirect, view, type Kernel, type Reply, type RequestContext } from 'fw'
import { datatableReply, listReply } from 'fw/plugins/list'
import { productColumns, productList } from './products-source.js'

/** `GET /api/v1/products`: `{data, pagination, fields}` (or the list error envelope). */
export function productIndex(ctx: RequestContext): Promise<Reply> {
  return listReply(ctx, productList)
}

/** `GET /api/v1/products/datatable`: the DataTables server-side protocol. */
export function productDatatable(ctx: RequestContext): Promise<Reply> {
  return datatableReply(ctx, productList)
}

/** JSON for an inline `<script>`: `<` escaped so the data can never close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c')
}

/**
 * `GET /products`: the page; its script asks the datatable endpoint for every page it shows. The
 * endpoint sits behind the API pipeline, which lets a page in through the same-origin exception
 * (a web session and its CSRF token), so guests are sent to sign in first.
 */
export async function productPage(ctx: RequestContext): Promise<Reply> {
  const identity = await ctx.identity()
  if (identity?.id === undefined)
    return redirect(`/login?return=${encodeURIComponent('/products')}`)
  if (ctx.query.theme === 'dark') ctx.state.theme = 'dark'
  const endpoint = ctx.kernel.url('v1.products.datatable')
  return view('products', {
    endpoint,
    columns: productColumns,
    config: scriptJson({ endpoint, columns: productColumns, pageSize: 20 }),
  })
}

/**
 * Declares the list routes: `v1.products.index` and `v1.products.datatable` in the `api/v1` group
 * (behind the `api` middleware, like the rest of the products API), and the `products` page.
 */
export function declareListRoutes(kernel: Kernel): void {
  const router = kernel.router
  router.group({ prefix: 'api/v1', middleware: ['api'], name: 'v1.' }, (r) => {
    r.get('products', productIndex).name('products.index')
    r.get('products/datatable', productDatatable).name('products.datatable')
  })
  router.get('products', productPage).name('products.page')
}
