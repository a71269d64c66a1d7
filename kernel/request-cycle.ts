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
import type { FwError } from './errors.js'
import { EventLog } from './events.js'
import { isThenable, runBail, runIsolated, runWaterfall, type MaybePromise } from './hook-runner.js'
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
import type { Pipeline } from './pipeline.js'
import type { Reply } from './reply.js'
import type { Route, RouteMatch } from './router/route.js'
import type { Router } from './router/router.js'
import { RouteScopes, runSynchronously } from './scope.js'

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
 * One request through the pipeline: maintenance → `request` → `route` → bindings → middleware and
 * handler → `render` → `annotate`. Every failure becomes a reply: `handle` never throws or rejects.
 *
 * Synchronous for as long as every step is (see `kernel/hook-runner.ts`): a route whose handler
 * and taps answer synchronously creates no promise. A step that returns a promise makes the rest
 * of its request asynchronous, and `handle` then returns a promise.
 */
export class RequestCycle {
  readonly #deps: RequestCycleDeps
  readonly #scopes = new RouteScopes<Route>()

  // The steps, bound once: a step takes the request and what the previous step produced, so the
  // synchronous path allocates no closure per request (see `next`).
  readonly #fail = (error: unknown, ctx: RequestContext): MaybePromise<Reply> =>
    errorReply(this.#deps, ctx, error)
  readonly #afterRequestHook = (early: Reply | undefined, ctx: RequestContext) =>
    early === undefined ? this.#route(ctx) : this.#finish(ctx, early)
  readonly #handle = (ctx: RequestContext): MaybePromise<Reply> => this.handle(ctx)
  readonly #failBeforeRoute = (error: unknown, ctx: RequestContext): MaybePromise<Reply> =>
    this.#finish(ctx, this.#fail(error, ctx))
  readonly #respond = (ctx: RequestContext, pipeline: Pipeline): MaybePromise<Reply> =>
    this.#finish(ctx, guarded(pipeline, ctx, this.#fail))
  readonly #rendered = (reply: Reply, ctx: RequestContext): MaybePromise<Reply> =>
    reply.body.kind === 'view'
      ? next(this.#fail(noViewEngine(reply.body.template), ctx), ctx, this.#annotate)
      : this.#annotate(reply, ctx)
  readonly #render = (reply: Reply, ctx: RequestContext): MaybePromise<Reply> => {
    const render = this.#deps.hooks.render
    if (!render.isUsed()) return this.#rendered(reply, ctx)
    let rendered: MaybePromise<Reply>
    try {
      rendered = runWaterfall(render, reply, ctx)
    } catch (error) {
      rendered = this.#fail(error, ctx)
    }
    if (isThenable(rendered)) rendered = rendered.then(undefined, (e) => this.#fail(e, ctx))
    return next(rendered, ctx, this.#rendered)
  }
  readonly #annotateFailed = (tap: string, error: unknown, [, ctx]: [Reply, RequestContext]) =>
    this.#deps.logger().error(`annotate tap '${tap}' failed`, { error, path: ctx.path })
  readonly #annotate = (reply: Reply, ctx: RequestContext): MaybePromise<Reply> => {
    ctx.log.record('response.prepared', { status: reply.status })
    const annotate = this.#deps.hooks.annotate
    if (!annotate.isUsed()) return reply
    // Each annotate tap is isolated: one that throws is reported and the others still run.
    const done = runIsolated(annotate, this.#annotateFailed, reply, ctx)
    return isThenable(done) ? done.then(() => reply) : reply
  }

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
    return runSynchronously(ctx, this.#handle)
  }

  /** A request answered in-process, as a client would see it (`kernel.inject`). */
  async inject(request: InjectRequest | string): Promise<InjectResponse> {
    const init = injectInit(request)
    const log = new EventLog()
    return injectResponse(
      await this.respond(init, log),
      init.method,
      log.all(),
      this.securityHeaders,
    )
  }

  /** Every way through ends in {@link #finish}; what fails before the route answers, too. */
  handle(ctx: RequestContext): MaybePromise<Reply> {
    ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
    return guarded(this.#answer, ctx, this.#failBeforeRoute)
  }

  /** Maintenance, the `request` hook, routing; each way out ends in {@link #finish}. */
  readonly #answer = (ctx: RequestContext): MaybePromise<Reply> => {
    const retryAfter = this.#deps.maintenance(ctx.log.origin)
    if (retryAfter !== undefined && !this.#deps.maintenance.exempts(ctx.routingPath)) {
      if (this.#deps.router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring))
        ctx.jsonByDefault = true
      return this.#finish(ctx, maintenanceReply(ctx, retryAfter))
    }
    const request = this.#deps.hooks.request
    if (!request.isUsed()) return this.#route(ctx)
    return next(runBail(request, ctx), ctx, this.#afterRequestHook)
  }

  #route(ctx: RequestContext): MaybePromise<Reply> {
    const start = ctx.log.now()
    // Routed already by a `request` tap.
    if (ctx.match !== undefined) return this.#dispatch(ctx, ctx.match, start)
    // With only the kernel's own route taps, ask the router directly: same answer, no loop.
    const { routing, hooks } = this.#deps
    const match = routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
    return isThenable(match)
      ? match.then((m) => this.#dispatch(ctx, m, start))
      : this.#dispatch(ctx, match, start)
  }

  #dispatch(
    ctx: RequestContext,
    found: RouteMatch | undefined,
    routingStart: number,
  ): MaybePromise<Reply> {
    const log = ctx.log
    const routingEnd = log.now()
    log.record(
      'phase.completed',
      { name: 'routing', start: routingStart, duration: routingEnd - routingStart },
      routingEnd,
    )
    let match = found
    if (match === undefined) {
      const { router } = this.#deps
      const allowed = router.allowedMethodsFor(ctx.method, ctx.routingPath, ctx.querystring)
      log.record('route.missed', { method: ctx.method, path: ctx.path, allowed })
      // A miss under an API's group (or a 405 of its route) answers as the API does: JSON.
      if (router.answersJson(ctx.routingPath, allowed, ctx.querystring)) ctx.jsonByDefault = true
      if (allowed.length > 0) return this.#finish(ctx, methodNotAllowedReply(ctx, allowed))
      if (!router.fallbackRoute) return this.#finish(ctx, notFoundReply(ctx))
      match = { route: router.fallbackRoute, params: {} }
    }
    ctx.match = match
    ctx.params = match.params
    const route = match.route
    const compiled = this.#deps.routes.compiled(route)
    log.record(
      'route.matched',
      {
        method: ctx.method,
        path: route.path,
        name: route.name,
        handler: compiled.name,
        params: match.params,
      },
      routingEnd,
    )
    // The route's pipeline, its error reply and the response's taps: in the request scope when
    // a plugin asked for it and the route may wait (see RouteScopes).
    if (!this.#deps.scoped()) return this.#respond(ctx, compiled.pipeline)
    return this.#scopes.run(route, compiled.mayWait, ctx, this.#respond, compiled.pipeline)
  }

  /** `render`, then `annotate`, on whatever answered. Never throws. */
  #finish(ctx: RequestContext, answered: MaybePromise<Reply>): MaybePromise<Reply> {
    return next(answered, ctx, this.#render)
  }
}

/** Hands a value, now or once settled, to the next step with the request. */
function next<T, R>(
  value: MaybePromise<T>,
  ctx: RequestContext,
  step: (value: T, ctx: RequestContext) => MaybePromise<R>,
): MaybePromise<R> {
  return isThenable(value) ? value.then((v) => step(v, ctx)) : step(value, ctx)
}

/** Runs a step; what it throws or rejects with becomes `fail`'s reply. */
function guarded(
  step: (ctx: RequestContext) => MaybePromise<Reply>,
  ctx: RequestContext,
  fail: (error: unknown, ctx: RequestContext) => MaybePromise<Reply>,
): MaybePromise<Reply> {
  let answered: MaybePromise<Reply>
  try {
    answered = step(ctx)
  } catch (error) {
    return fail(error, ctx)
  }
  return isThenable(answered) ? answered.then(undefined, (error) => fail(error, ctx)) : answered
}

function noViewEngine(template: string): FwError {
  return requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template })
}
