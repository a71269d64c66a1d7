import type { BuiltinRouting } from './builtin-routing.js'
import type { CompiledRoutes } from './compiled-routes.js'
import type { RequestContext, RequestInit } from './context.js'
import {
  errorReply,
  maintenanceReply,
  methodNotAllowedReply,
  notFoundReply,
  type ErrorReplyDeps,
} from './error-replies.js'
import { requestErrors } from './error-codes.js'
import { EventLog } from './events.js'
import { isThenable, runBail, runEach, runWaterfall, type MaybePromise } from './hook-runner.js'
import {
  injectInit,
  injectResponse,
  type InjectRequest,
  type InjectResponse,
} from './http/inject.js'
import {
  securityHeaders,
  type SecurityHeaders,
  type SecurityHeadersConfig,
} from './http/security-headers.js'
import type { MaintenanceProbe } from './maintenance.js'
import { Reply } from './reply.js'
import type { ReplyEnds } from './route-chain.js'
import type { RouteMatch } from './router/route.js'
import type { Router } from './router/router.js'
import { enterRequest, leaveRequest, runRouteScoped } from './scope.js'

/** What the request cycle is built from (the kernel hands over these parts, not itself). */
export interface RequestCycleDeps extends ErrorReplyDeps {
  readonly router: Router
  /** The kernel's own `route` taps, callable directly while they are the only ones. */
  readonly routing: BuiltinRouting
  readonly routes: CompiledRoutes
  /** The maintenance probe; `now` is the request's start (a clock read saved). */
  readonly maintenance: MaintenanceProbe
  /** True when a plugin asked for the request scope (`kernel.useRequestScope()`). */
  scoped(): boolean
  /** A request's context (the kernel's, handed to handlers and taps as `ctx`). */
  context(init: RequestInit, log: EventLog): RequestContext
  /** `http.security_headers`: what every response (and every HTML page) carries. */
  readonly securityHeaders: SecurityHeadersConfig
}

/**
 * One request through the kernel, read top to bottom: `respond` makes its context; `handle` admits
 * it (maintenance, the `request` hook), `#route` finds its route (the `route` hook, or the router
 * directly), `#dispatch` answers a miss or runs the route's compiled chain (kernel/route-chain.ts),
 * which ends in `finish`: `render`, then `annotate`. Every reply, whoever made it, ends there.
 *
 * This is the one place a request's way branches on a promise: each step runs synchronously while
 * what it calls answers synchronously (a route whose handler and taps do creates no promise), and
 * the first promise hands the rest of the request to the step's `…Awaiting` twin, plain
 * `async`/`await` from there on. `handle` never throws or rejects: a failure becomes a reply.
 */
export class RequestCycle implements ReplyEnds {
  readonly #deps: RequestCycleDeps

  /** The security headers, resolved once; the server adds them to what it writes itself too. */
  readonly securityHeaders: SecurityHeaders

  constructor(deps: RequestCycleDeps) {
    this.#deps = deps
    this.securityHeaders = securityHeaders(deps.securityHeaders)
  }

  /** One request: its context and event log made, the cycle run; the kernel's entry. */
  respond(init: RequestInit, log = new EventLog()): MaybePromise<Reply> {
    const ctx = this.#deps.context(init, log)
    // `currentContext()` finds the request in everything that runs synchronously from here.
    const previous = enterRequest(ctx)
    try {
      return this.handle(ctx)
    } finally {
      leaveRequest(previous)
    }
  }

  /** A request answered in-process, as a client would see it (`kernel.inject`). */
  async inject(request: InjectRequest | string): Promise<InjectResponse> {
    const init = injectInit(request)
    const log = new EventLog()
    const reply = await this.respond(init, log)
    const secure = { secure: () => init.secure === true }
    return injectResponse(reply, init.method, log.all(), this.securityHeaders, secure)
  }

  /** A request from its context to its reply; whatever throws on the way is the error reply. */
  handle(ctx: RequestContext): MaybePromise<Reply> {
    ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
    try {
      return this.#admit(ctx)
    } catch (error) {
      return this.finish(ctx, this.fail(ctx, error))
    }
  }

  /** Maintenance (503), then the `request` hook, whose taps may answer (a CORS preflight). */
  #admit(ctx: RequestContext): MaybePromise<Reply> {
    const { maintenance, router, hooks } = this.#deps
    const retryAfter = maintenance(ctx.log.origin)
    if (retryAfter !== undefined && !maintenance.exempts(ctx.routingPath)) {
      if (router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring))
        ctx.jsonByDefault = true
      return this.finish(ctx, maintenanceReply(ctx, retryAfter))
    }
    const early = hooks.request.isUsed() ? runBail(hooks.request, ctx) : undefined
    if (isThenable(early)) return this.#admitAwaiting(ctx, early)
    return early === undefined ? this.#route(ctx) : this.finish(ctx, early)
  }

  async #admitAwaiting(ctx: RequestContext, early: Promise<Reply | undefined>): Promise<Reply> {
    try {
      const reply = await early
      return await (reply === undefined ? this.#route(ctx) : this.finish(ctx, reply))
    } catch (error) {
      return this.finish(ctx, this.fail(ctx, error))
    }
  }

  /** The match a `request` tap set (the admin area does), or the `route` hook's. */
  #route(ctx: RequestContext): MaybePromise<Reply> {
    const start = ctx.log.now()
    if (ctx.match !== undefined) return this.#dispatch(ctx, ctx.match, start)
    // With only the kernel's own route taps, ask the router directly: same answer, no loop.
    const { routing, hooks } = this.#deps
    const match = routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
    if (isThenable(match)) return this.#routeAwaiting(ctx, match, start)
    return this.#dispatch(ctx, match, start)
  }

  async #routeAwaiting(
    ctx: RequestContext,
    match: Promise<RouteMatch | undefined>,
    start: number,
  ): Promise<Reply> {
    try {
      return await this.#dispatch(ctx, await match, start)
    } catch (error) {
      return this.finish(ctx, this.fail(ctx, error))
    }
  }

  /** Records routing; answers a miss (405, the fallback route, 404), runs a match's chain. */
  #dispatch(
    ctx: RequestContext,
    found: RouteMatch | undefined,
    start: number,
  ): MaybePromise<Reply> {
    const log = ctx.log
    const end = log.now()
    log.record('phase.completed', { name: 'routing', start, duration: end - start }, end)
    const match = found ?? this.#missed(ctx)
    if (match instanceof Reply) return this.finish(ctx, match)
    ctx.match = match
    ctx.params = match.params
    const { route, params } = match
    const compiled = this.#deps.routes.compiled(route)
    const { method } = ctx
    const matched = { method, path: route.path, name: route.name, handler: compiled.name, params }
    log.record('route.matched', matched, end)
    // The chain (with its error reply and the response's taps) runs in the request scope when a
    // plugin asked for it and the route may wait (test/kernel/scope.test.ts).
    return this.#deps.scoped() ? runRouteScoped(compiled, ctx) : compiled.run(ctx)
  }

  /** A request no route matched: 405 when the path answers other methods, the fallback, 404. */
  #missed(ctx: RequestContext): RouteMatch | Reply {
    const { router } = this.#deps
    const allowed = router.allowedMethodsFor(ctx.method, ctx.routingPath, ctx.querystring)
    ctx.log.record('route.missed', { method: ctx.method, path: ctx.path, allowed })
    // A miss under an API's group (or a 405 of its route) answers as the API does: JSON.
    if (router.answersJson(ctx.routingPath, allowed, ctx.querystring)) ctx.jsonByDefault = true
    if (allowed.length > 0) return methodNotAllowedReply(ctx, allowed)
    if (!router.fallbackRoute) return notFoundReply(ctx)
    return { route: router.fallbackRoute, params: {} }
  }

  /** The error reply for what was thrown (the `error` hook, then the kernel's 500). */
  fail(ctx: RequestContext, error: unknown): MaybePromise<Reply> {
    return errorReply(this.#deps, ctx, error)
  }

  /**
   * `render`, then `annotate`, on whatever answered: a reply of the kernel's, a `request` tap's, a
   * route's or an error reply. Never throws; an error reply that fails itself is not retried (the
   * server then answers a bare 500).
   */
  finish(ctx: RequestContext, answered: MaybePromise<Reply>): MaybePromise<Reply> {
    if (isThenable(answered)) return this.#finishSettled(ctx, answered)
    const rendered = this.#render(ctx, answered)
    if (isThenable(rendered)) return this.#annotateAwaiting(ctx, rendered)
    return this.#annotate(ctx, rendered)
  }

  async #finishSettled(ctx: RequestContext, answered: Promise<Reply>): Promise<Reply> {
    return this.finish(ctx, await answered)
  }

  async #annotateAwaiting(ctx: RequestContext, rendered: Promise<Reply>): Promise<Reply> {
    return this.#annotate(ctx, await rendered)
  }

  /**
   * The `render` hook (content negotiation, views, the toolbar): what a tap fails with becomes the
   * error reply, not rendered again. A view no tap turned into a body is an error (no engine).
   */
  #render(ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
    const render = this.#deps.hooks.render
    let rendered: MaybePromise<Reply>
    try {
      rendered = render.isUsed() ? runWaterfall(render, reply, ctx) : reply
    } catch (error) {
      return this.fail(ctx, error)
    }
    if (isThenable(rendered)) return this.#renderAwaiting(ctx, rendered)
    return rendered.body.kind === 'view' ? this.fail(ctx, noViewEngine(rendered)) : rendered
  }

  async #renderAwaiting(ctx: RequestContext, rendered: Promise<Reply>): Promise<Reply> {
    let reply: Reply
    try {
      reply = await rendered
    } catch (error) {
      return this.fail(ctx, error)
    }
    return reply.body.kind === 'view' ? this.fail(ctx, noViewEngine(reply)) : reply
  }

  /** `response.prepared`, then the `annotate` hook (headers), each tap isolated; the reply. */
  #annotate(ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
    ctx.log.record('response.prepared', { status: reply.status })
    const annotate = this.#deps.hooks.annotate
    if (!annotate.isUsed()) return reply
    // One tap that throws is reported and the others still run; the result is the reply.
    return runEach(annotate, this.#annotateFailed, reply, ctx)
  }

  // Told about each failing `annotate` tap; bound once, as the hook runner calls it without `this`.
  readonly #annotateFailed = (tap: string, error: unknown, [, ctx]: [Reply, RequestContext]) =>
    this.#deps.logger().error(`annotate tap '${tap}' failed`, { error, path: ctx.path })
}

function noViewEngine(reply: Reply): Error {
  const template = reply.body.kind === 'view' ? reply.body.template : ''
  return requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template })
}
