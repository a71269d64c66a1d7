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
import type { CompiledRoute } from './pipeline.js'
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
 * One request through the kernel. Each phase is a method taking the request's `ctx`; read them
 * top to bottom:
 *
 * 1. `respond`: the context and its event log made; `currentContext()` finds it from here on.
 * 2. `handle`: `request.received`; whatever fails until a reply exists becomes an error reply.
 * 3. `#admit`: maintenance (503), then the `request` hook, whose taps may answer (CORS
 *    preflight) or route the request themselves (the admin area sets `ctx.match`).
 * 4. `#route`: the `route` hook, or the router directly while only the kernel taps it.
 * 5. `#dispatch`: the `routing` phase and `route.matched`; a miss answers 405, the fallback
 *    route or 404; a match runs its route, in the request scope when it needs one.
 * 6. `#runRoute`: the route's compiled pipeline (middleware, bindings, body check, handler; see
 *    `kernel/pipeline.ts`); what it throws or rejects with becomes an error reply.
 * 7. `#finish`, for every reply whoever made it: `#render` (the `render` hook), then `#annotate`
 *    (`response.prepared` and the `annotate` hook, each tap isolated). Then back to the caller.
 *
 * Synchronous for as long as every phase is (see `kernel/hook-runner.ts`): a route whose handler
 * and taps answer synchronously creates no promise. A phase that returns a promise makes the rest
 * of its request asynchronous: the next phase then runs in one continuation (see {@link then}),
 * which also takes the promise's failure, and `handle` returns a promise. `handle` never throws or
 * rejects: a failure is caught where it arises, so no promise is chained only to catch one.
 */
export class RequestCycle {
  readonly #deps: RequestCycleDeps
  readonly #scopes = new RouteScopes<Route>()

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
    return runSynchronously(ctx, this, this.handle)
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
      {
        secure: () => init.secure === true,
      },
    )
  }

  /** A request from its context to its reply; every way through ends in {@link #finish}. */
  handle(ctx: RequestContext): MaybePromise<Reply> {
    ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
    try {
      return this.#admit(ctx)
    } catch (error) {
      return this.#failed(ctx, error)
    }
  }

  /** Maintenance, then the `request` hook; a request neither answers goes on to routing. */
  #admit(ctx: RequestContext): MaybePromise<Reply> {
    const retryAfter = this.#deps.maintenance(ctx.log.origin)
    if (retryAfter !== undefined && !this.#deps.maintenance.exempts(ctx.routingPath)) {
      if (this.#deps.router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring))
        ctx.jsonByDefault = true
      return this.#finish(ctx, maintenanceReply(ctx, retryAfter))
    }
    const request = this.#deps.hooks.request
    if (!request.isUsed()) return this.#route(ctx)
    const early = runBail(request, ctx)
    return isThenable(early)
      ? then(early, this, this.#afterRequestHook, this.#failed, ctx)
      : this.#afterRequestHook(ctx, early)
  }

  /** A `request` tap's reply answers at once (still rendered and annotated); none, routing. */
  #afterRequestHook(ctx: RequestContext, early: Reply | undefined): MaybePromise<Reply> {
    return early === undefined ? this.#route(ctx) : this.#finish(ctx, early)
  }

  /** What answers the request: a match a `request` tap set, or the `route` hook's. */
  #route(ctx: RequestContext): MaybePromise<Reply> {
    const start = ctx.log.now()
    if (ctx.match !== undefined) return this.#dispatch(ctx, ctx.match, start)
    // With only the kernel's own route taps, ask the router directly: same answer, no loop.
    const { routing, hooks } = this.#deps
    const match = routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
    return isThenable(match)
      ? this.#dispatchWhenRouted(ctx, match, start)
      : this.#dispatch(ctx, match, start)
  }

  /** A `route` tap that waited: dispatch once it has answered; its failure, the error reply. */
  #dispatchWhenRouted(
    ctx: RequestContext,
    match: Promise<RouteMatch | undefined>,
    routingStart: number,
  ): Promise<Reply> {
    return match.then(
      (found) => {
        try {
          return this.#dispatch(ctx, found, routingStart)
        } catch (error) {
          return this.#failed(ctx, error)
        }
      },
      (error: unknown) => this.#failed(ctx, error),
    )
  }

  /** Records routing; answers a miss (405, fallback, 404), runs a match's route. */
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
    if (!this.#deps.scoped()) return this.#runRoute(ctx, compiled)
    return this.#scopes.run(route, compiled.mayWait, ctx, this, this.#runRoute, compiled)
  }

  /** The route's pipeline; what it throws or rejects with becomes the error reply. */
  #runRoute(ctx: RequestContext, compiled: CompiledRoute): MaybePromise<Reply> {
    let answered: MaybePromise<Reply>
    try {
      answered = compiled.run(ctx)
    } catch (error) {
      return this.#failed(ctx, error)
    }
    return isThenable(answered)
      ? then(answered, this, this.#render, this.#failed, ctx)
      : this.#render(ctx, answered)
  }

  /**
   * `render`, then `annotate`, on whatever answered: a reply of the kernel's, a `request` tap's, or
   * an error reply. Never throws; an error reply that fails itself is not retried (the server then
   * answers a bare 500).
   */
  #finish(ctx: RequestContext, answered: MaybePromise<Reply>): MaybePromise<Reply> {
    return isThenable(answered)
      ? then(answered, this, this.#render, undefined, ctx)
      : this.#render(ctx, answered)
  }

  /** The `render` hook (content negotiation, views, the toolbar); a failing tap, an error reply. */
  #render(ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
    const render = this.#deps.hooks.render
    if (!render.isUsed()) return this.#afterRender(ctx, reply)
    let rendered: MaybePromise<Reply>
    try {
      rendered = runWaterfall(render, reply, ctx)
    } catch (error) {
      return this.#renderFailed(ctx, error)
    }
    return isThenable(rendered)
      ? then(rendered, this, this.#afterRender, this.#renderFailed, ctx)
      : this.#afterRender(ctx, rendered)
  }

  /** What a `render` tap failed with: its error reply, not rendered again. */
  #renderFailed(ctx: RequestContext, error: unknown): MaybePromise<Reply> {
    const failed = this.#fail(ctx, error)
    return isThenable(failed)
      ? then(failed, this, this.#afterRender, undefined, ctx)
      : this.#afterRender(ctx, failed)
  }

  /** A view no `render` tap turned into a body is an error (no view engine). */
  #afterRender(ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
    if (reply.body.kind !== 'view') return this.#annotate(ctx, reply)
    const failed = this.#fail(ctx, noViewEngine(reply.body.template))
    return isThenable(failed)
      ? then(failed, this, this.#annotate, undefined, ctx)
      : this.#annotate(ctx, failed)
  }

  /** `response.prepared`, then the `annotate` hook (headers), each tap isolated; the reply. */
  #annotate(ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
    ctx.log.record('response.prepared', { status: reply.status })
    const annotate = this.#deps.hooks.annotate
    if (!annotate.isUsed()) return reply
    // One tap that throws is reported and the others still run; the result is the reply.
    return runEach(annotate, this.#annotateFailed, reply, ctx)
  }

  // A callback the hook runner calls without `this`, so bound once.
  readonly #annotateFailed = (tap: string, error: unknown, [, ctx]: [Reply, RequestContext]) =>
    this.#deps.logger().error(`annotate tap '${tap}' failed`, { error, path: ctx.path })

  /** The error reply for what was thrown (the `error` hook, then the kernel's 500). */
  #fail(ctx: RequestContext, error: unknown): MaybePromise<Reply> {
    return errorReply(this.#deps, ctx, error)
  }

  /** What was thrown before or by the route: its error reply, rendered and annotated. */
  #failed(ctx: RequestContext, error: unknown): MaybePromise<Reply> {
    return this.#finish(ctx, this.#fail(ctx, error))
  }
}

/** A phase: a method of the cycle taking the request and what the previous phase produced. */
type Phase<T> = (this: RequestCycle, ctx: RequestContext, value: T) => MaybePromise<Reply>

// The continuations live here, not in the phases: a method that creates a closure allocates its
// scope on every call, also when it goes on synchronously and the closure is never made.

/**
 * Once `value` settles: `phase` with its value; `failed` with what `value` rejected with or `phase`
 * threw (without `failed`, a failure passes on). One `then` for both, so each asynchronous step of
 * a request costs one promise.
 */
function then<T>(
  value: Promise<T>,
  cycle: RequestCycle,
  phase: Phase<T>,
  failed: Phase<unknown> | undefined,
  ctx: RequestContext,
): Promise<Reply> {
  if (failed === undefined) return value.then((settled) => phase.call(cycle, ctx, settled))
  return value.then(
    (settled) => {
      try {
        return phase.call(cycle, ctx, settled)
      } catch (error) {
        return failed.call(cycle, ctx, error)
      }
    },
    (error: unknown) => failed.call(cycle, ctx, error),
  )
}

function noViewEngine(template: string): FwError {
  return requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template })
}
