// Live updates of the products page: every product a request created, updated or deleted (through
// the API, the admin area, anything that goes through the ORM) is published on the `products`
// channel, which anyone may listen to (the page is open to guests). The page's EventSource
// (views/products.eta) refreshes its table on each. What changed is read from the request's own
// event log (`model.*` events), after the response: a projection, not a hook into the handlers.
import { definePlugin, type FwEvent, type RequestContext } from 'fw'

/** The channel the products page listens to. */
export const PRODUCTS_CHANNEL = 'products'

const ACTIONS = {
  'model.created': 'created',
  'model.updated': 'updated',
  'model.deleted': 'deleted',
} as const

type ModelEvent = FwEvent<keyof typeof ACTIONS>

/** The products `ctx` changed, each once with its last action. */
function changedProducts(ctx: RequestContext): Map<unknown, string> {
  const changed = new Map<unknown, string>()
  for (const event of ctx.log.all()) {
    if (!(event.type in ACTIONS)) continue
    const { data, type } = event as ModelEvent
    if (data.entity === 'Product') changed.set(data.id, ACTIONS[type])
  }
  return changed
}

declare module 'fw' {
  interface PluginApis {
    'playground-live': void
  }
}

/** The `products` channel and what publishes on it. */
export default definePlugin({
  name: 'playground-live',
  dependsOn: ['realtime', 'database'],
  setup(kernel) {
    const realtime = kernel.plugin('realtime')
    realtime.channel(PRODUCTS_CHANNEL, { authorize: 'public' })
    kernel.hooks.annotate.tap('playground-live', (reply, ctx) => {
      // Reads change nothing: a GET costs this one comparison.
      if (ctx.method === 'GET' || ctx.method === 'HEAD' || reply.status >= 400) return
      for (const [id, action] of changedProducts(ctx))
        realtime
          .publish(PRODUCTS_CHANNEL, action, { id }, ctx)
          .catch((error: unknown) =>
            kernel.logger.warn('products: a live update was not published', { error }),
          )
    })
  },
})
