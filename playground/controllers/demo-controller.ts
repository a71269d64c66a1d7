import type { RequestContext } from 'fw'

/**
 * The classic controller `demo`, reached by legacy decomposition: `/?r=demo/echo/…`. Each action is
 * called as `action(args, ctx)`, `args` being the segments after controller and action.
 */
export class DemoController {
  /** Answers what the decomposition made of the request. */
  echo(_args: string[], ctx: RequestContext): Record<string, unknown> {
    const legacy = ctx.match?.legacy
    return {
      controller: legacy?.controller,
      action: legacy?.action,
      option: legacy?.option ?? null,
      get: legacy?.get ?? {},
      originalRequest: legacy?.originalRequest,
      originalRequestNoChange: legacy?.originalRequestNoChange,
    }
  }
}
