import type { RequestContext } from 'fw'
import { measure, recordService } from 'fw/plugins/debug'

/**
 * A pretend service, recorded on construction, with one measured call. The call is timed under an
 * application name, `customer-secret-lookup`, that says more than a browser should see: it shows
 * in the debug payload's `services` (the toolbar's Domain tab) and never in `Server-Timing`.
 */
class PriceService {
  constructor(ctx: RequestContext) {
    recordService('PriceService', ctx)
  }

  quote(sku: string, ctx: RequestContext): Promise<{ sku: string; cents: number }> {
    return measure(
      'customer-secret-lookup',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 2))
        return { sku, cents: 1200 }
      },
      ctx,
    )
  }
}

/**
 * `GET /_demo/measure`: constructs a service and measures one call, so the toolbar's Domain tab
 * (`_debug.services`) shows `PriceService` constructed and its `customer-secret-lookup` call with
 * a duration.
 */
export async function measureDemo(
  ctx: RequestContext,
): Promise<{ quote: { sku: string; cents: number } }> {
  const prices = new PriceService(ctx)
  return { quote: await prices.quote('PG-0001', ctx) }
}
