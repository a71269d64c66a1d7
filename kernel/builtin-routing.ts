import type { RequestContext } from './context.js'
import { methodNotAllowedReply, notFoundReply } from './error-replies.js'
import type { KernelHooks } from './hooks.js'
import type { Reply } from './reply.js'
import type { RouteMatch } from './router/route.js'
import type { Router } from './router/router.js'

/** True when a query string carries the legacy `r` parameter (`?r=controller/action`). */
export function hasRParam(querystring: string): boolean {
  // Most requests have no query string: no search through it then.
  return querystring !== '' && (querystring.startsWith('r=') || querystring.includes('&r='))
}

/** The kernel's own routing, as taps and as a direct call. */
export interface BuiltinRouting {
  /** True while the `route` hook holds only the kernel's own taps. */
  only(): boolean
  /** What the kernel's own taps answer, without the hook's promise chain (the fast path). */
  direct(ctx: RequestContext): RouteMatch | undefined
  /** A request no route matched: 405 when the path answers other methods, the fallback, 404. */
  missed(ctx: RequestContext): RouteMatch | Reply
}

/**
 * Taps the `route` hook with the kernel's three built-in taps. `?r=controller/action/…` names a
 * classic controller explicitly, so it is asked before the declared routes (`/?r=…` must not land
 * on the home page); a bare path reaches a classic controller only when no declared route answers.
 */
export function installBuiltinRouting(hooks: KernelHooks, router: Router): BuiltinRouting {
  // A path rewritten for routing (a tap that strips a prefix) is decomposed as rewritten and
  // reported as it arrived (`originalRequestNoChange`); `?r=` is decomposed and reported as given.
  const legacy = (ctx: RequestContext): RouteMatch | undefined =>
    ctx.routingPath === ctx.path || hasRParam(ctx.querystring)
      ? router.matchLegacy(ctx.routingPath, ctx.querystring, ctx.query)
      : router.matchLegacy(ctx.path, ctx.querystring, ctx.query, ctx.routingPath)
  const declared = (ctx: RequestContext): RouteMatch | undefined =>
    router.find(ctx.method, ctx.routingPath, ctx.querystring)
  // Synchronous taps: with only synchronous route taps beside them, routing still answers without
  // a promise. (The admin area routes its requests from a `request` tap, so it adds none.)
  hooks.route.tap({ name: 'legacy-r', stage: -5 }, (ctx) =>
    hasRParam(ctx.querystring) ? legacy(ctx) : undefined,
  )
  hooks.route.tap({ name: 'router', stage: 0 }, (ctx) => declared(ctx))
  hooks.route.tap({ name: 'legacy', stage: 10 }, (ctx) =>
    hasRParam(ctx.querystring) ? undefined : legacy(ctx),
  )
  const builtinTaps = hooks.route.taps.length
  return {
    only: () => hooks.route.taps.length === builtinTaps,
    direct: (ctx) =>
      hasRParam(ctx.querystring) ? (legacy(ctx) ?? declared(ctx)) : (declared(ctx) ?? legacy(ctx)),
    missed: (ctx) => missed(router, ctx),
  }
}

function missed(router: Router, ctx: RequestContext): RouteMatch | Reply {
  const allowed = router.allowedMethodsFor(ctx.method, ctx.routingPath, ctx.querystring)
  ctx.log.record('route.missed', { method: ctx.method, path: ctx.path, allowed })
  // A miss under an API's group (or a 405 of its route) answers as the API does: JSON.
  if (router.answersJson(ctx.routingPath, allowed, ctx.querystring)) ctx.jsonByDefault = true
  if (allowed.length > 0) return methodNotAllowedReply(ctx, allowed)
  if (!router.fallbackRoute) return notFoundReply(ctx)
  return { route: router.fallbackRoute, params: {} }
}
