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
import { FwError } from './errors.js'
import { EventLog } from './events.js'
import {
  attempt,
  runBail,
  runIsolated,
  runWaterfall,
  andThen,
  type MaybePromise,
} from './hook-runner.js'
import {
  injectInit,
  injectResponse,
  type InjectRequest,
  type InjectResponse,
} from './http/inject.js'
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
  maintenance(now?: number): number | undefined
  /** True when a plugin asked for the request scope (`kernel.useRequestScope()`). */
  scoped(): boolean
  /** A request's context (the kernel's, handed to handlers and taps as `ctx`). */
  context(init: RequestInit, log: EventLog): RequestContext
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
  constructor(deps: RequestCycleDeps) {
    this.#deps = deps
  }

  /** The error path of every step: the reply for what was thrown (`kernel/error-replies.ts`). */
  #recover(ctx: RequestContext): (error: unknown) => MaybePromise<Reply> {
    return (error) => errorReply(this.#deps, ctx, error)
  }

  /** One request: its context and event log made, the cycle run; the kernel's entry. */
  respond(init: RequestInit, log = new EventLog()): MaybePromise<Reply> {
    const ctx = this.#deps.context(init, log)
    // `currentContext()` finds the request in everything that runs synchronously from here.
    return runSynchronously(ctx, () => this.handle(ctx))
  }

  /** A request answered in-process, as a client would see it (`kernel.inject`). */
  async inject(request: InjectRequest | string): Promise<InjectResponse> {
    const init = injectInit(request)
    const log = new EventLog()
    return injectResponse(await this.respond(init, log), init.method, log.all())
  }

  handle(ctx: RequestContext): MaybePromise<Reply> {
    ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
    return attempt(
      () => this.#answer(ctx),
      (error) => this.#finish(ctx, this.#recover(ctx)(error)),
    )
  }

  /** Maintenance, the `request` hook, routing; each way out ends in {@link #finish}. */
  #answer(ctx: RequestContext): MaybePromise<Reply> {
    const retryAfter = this.#deps.maintenance(ctx.log.origin)
    if (retryAfter !== undefined) return this.#finish(ctx, maintenanceReply(ctx, retryAfter))
    const request = this.#deps.hooks.request
    if (!request.isUsed()) return this.#route(ctx)
    return andThen(runBail(request, ctx), (early) =>
      early === undefined ? this.#route(ctx) : this.#finish(ctx, early),
    )
  }

  #route(ctx: RequestContext): MaybePromise<Reply> {
    const routingStart = ctx.log.now()
    // With only the kernel's own route taps, ask the router directly: same answer, no loop.
    const { routing, hooks } = this.#deps
    const match = routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
    return andThen(match, (m) => this.#dispatch(ctx, m, routingStart))
  }

  #dispatch(ctx: RequestContext, found: RouteMatch | undefined, routingStart: number) {
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
      if (allowed.length > 0) return this.#finish(ctx, methodNotAllowedReply(ctx, allowed))
      if (!router.fallbackRoute) return this.#finish(ctx, notFoundReply(ctx))
      match = { route: router.fallbackRoute, params: {} }
    }
    ctx.match = match
    ctx.params = match.params
    const route = match.route
    const routes = this.#deps.routes
    log.record(
      'route.matched',
      {
        method: ctx.method,
        path: route.path,
        name: route.name,
        handler: routes.nameOf(route),
        params: match.params,
      },
      routingEnd,
    )
    const { pipeline, mayWait } = routes.compiled(route)
    // The route's pipeline, its error reply and the response's taps: in the request scope when
    // a plugin asked for it and the route may wait (see RouteScopes).
    const respond = (): MaybePromise<Reply> =>
      this.#finish(
        ctx,
        attempt(() => pipeline(ctx), this.#recover(ctx)),
      )
    return this.#deps.scoped() ? this.#scopes.run(route, mayWait, ctx, respond) : respond()
  }

  /** `render`, then `annotate`, on whatever answered. Never throws. */
  #finish(ctx: RequestContext, answered: MaybePromise<Reply>): MaybePromise<Reply> {
    const recover = this.#recover(ctx)
    const rendered = andThen(answered, (reply) =>
      this.#deps.hooks.render.isUsed()
        ? attempt(() => runWaterfall(this.#deps.hooks.render, reply, ctx), recover)
        : reply,
    )
    return andThen(rendered, (reply) =>
      reply.body.kind === 'view'
        ? andThen(recover(noViewEngine(reply.body.template)), (r) => this.#annotate(ctx, r))
        : this.#annotate(ctx, reply),
    )
  }

  #annotate(ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
    ctx.log.record('response.prepared', { status: reply.status })
    const annotate = this.#deps.hooks.annotate
    if (!annotate.isUsed()) return reply
    // Each annotate tap is isolated: one that throws is reported and the others still run.
    const done = runIsolated(
      annotate,
      (tap, error) =>
        this.#deps.logger().error(`annotate tap '${tap}' failed`, { error, path: ctx.path }),
      reply,
      ctx,
    )
    return andThen(done, () => reply)
  }
}

function noViewEngine(template: string): FwError {
  return new FwError(
    'FW_ERR_VIEW_NO_ENGINE',
    `A handler returned the view '${template}', but no view engine is registered. Register a views plugin, or return html(...).`,
  )
}
