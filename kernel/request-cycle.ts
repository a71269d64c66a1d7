import { RequestContext, type RequestInit } from './context.js'
import {
  errorReplied,
  logRequestError,
  maintenanceReply,
  methodNotAllowedReply,
  notFoundReply,
} from './error-replies.js'
import { requestErrors } from './error-codes.js'
import { EventLog } from './events.js'
import { isThenable, runBail, runEach, runWaterfall, type MaybePromise } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import { actionEnded, runChain, type ActionTiming } from './route-chain.js'
import type { CompiledRoute } from './route-compile.js'
import type { RouteMatch } from './router/route.js'
import type { RequestCycle } from './request-cycle-deps.js'
import { enterRequest, enterScope, leaveScope, restoreScope } from './scope.js'

// One request through the kernel: admit (maintenance, the `request` hook) → find (the `route`
// hook or the router) → answer (the route's chain) → render → annotate, and `fail` (the `error`
// hook) for what a step before `annotate` throws. `cycleNow` runs the steps while each answers
// now and hands the first promise to `cycleLater`, so a synchronous route creates no promise
// (test/e2e/lean-request.test.ts); a failure becomes the error reply (test/kernel/errors.test.ts).

type Step = 'admit' | 'find' | 'answer' | 'render' | 'annotate' | 'fail' | 'failRender' | 'done'

/** One request on its way: the step it is at, and what later steps need from earlier ones. */
class Progress implements ActionTiming {
  at: Step = 'admit'
  routingStart = 0
  route: CompiledRoute | undefined = undefined
  error: unknown = undefined
  actionStart = -1
  /** In the request scope, and the store it replaced. */
  scoped = false
  outside: RequestContext | undefined = undefined

  constructor(
    readonly cycle: RequestCycle,
    readonly ctx: RequestContext,
  ) {}
}

/** One request: its context and event log made, the cycle run; the kernel's entry. */
export function respond(
  cycle: RequestCycle,
  init: RequestInit,
  log = new EventLog(),
): MaybePromise<Reply> {
  const ctx = new RequestContext(cycle.deps.kernel, init, log)
  // `currentContext()` finds the request in everything that runs synchronously from here.
  const previous = enterRequest(ctx)
  try {
    return cycleNow(new Progress(cycle, ctx), undefined)
  } finally {
    enterRequest(previous)
  }
}

/** {@link respond} for the socket server: `deliver(to, …)` the reply, or a kernel bug's error. */
export function respondTo<T>(
  cycle: RequestCycle,
  init: RequestInit,
  to: T,
  deliver: (to: T, reply: Reply | undefined, error: unknown) => void,
): void {
  let reply: MaybePromise<Reply>
  try {
    reply = respond(cycle, init)
  } catch (error) {
    return deliver(to, undefined, error)
  }
  if (!isThenable(reply)) return deliver(to, reply, undefined)
  reply.then(
    (value) => deliver(to, value, undefined),
    (error: unknown) => deliver(to, undefined, error),
  )
}

/**
 * The steps from `p.at` on, `value` the answer of the one before, while each answers now; the
 * first promise to `cycleLater`, then the store the scope replaced current again (the socket's
 * other requests must not inherit it). A chain that waited keeps its route in the scope from
 * then on (test/kernel/scope.test.ts).
 */
function cycleNow(p: Progress, value: unknown): MaybePromise<Reply> {
  while (p.at !== 'done') {
    try {
      const answered = step(p, value)
      if (isThenable(answered)) {
        if (p.at === 'answer') p.route!.scope.waited()
        const reply = cycleLater(p, answered)
        if (p.scoped) restoreScope(p.outside)
        return reply
      }
      value = settle(p, answered)
    } catch (error) {
      value = failed(p, error)
    }
  }
  if (p.scoped) {
    restoreScope(p.outside)
    leaveScope()
  }
  return value as Reply
}

/** Step `p.at`'s promise settled, then the steps after it as {@link cycleNow} runs them. */
async function cycleLater(p: Progress, pending: Promise<unknown>): Promise<Reply> {
  let value: unknown
  try {
    value = settle(p, await pending)
  } catch (error) {
    value = failed(p, error)
  }
  return cycleNow(p, value)
}

/** Runs step `p.at` on `value`, the answer of the step before: its own answer, now or promised. */
function step(p: Progress, value: unknown): unknown {
  const { ctx } = p
  const { hooks } = p.cycle.deps
  switch (p.at) {
    case 'admit':
      return admit(p)
    case 'find': {
      p.routingStart = ctx.log.now()
      // With only the kernel's own `route` taps, the router's match directly (no loop).
      const { routing } = p.cycle.deps
      return ctx.match ?? (routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx))
    }
    case 'answer':
      return answerRoute(p)
    case 'render':
      return hooks.render.isUsed() ? runWaterfall(hooks.render, value as Reply, ctx) : value
    case 'annotate':
      return annotate(p, value as Reply)
    default:
      return hooks.error.isUsed() ? runBail(hooks.error, p.error, ctx) : undefined
  }
}

/** Takes step `p.at`'s settled answer: the request moved to the next step, and its value. */
function settle(p: Progress, answered: unknown): unknown {
  switch (p.at) {
    case 'admit':
      p.at = answered === undefined ? 'find' : 'render'
      return answered
    case 'find':
      return matched(p, answered as RouteMatch | undefined)
    case 'answer':
      actionEnded(p.ctx, p)
      answered = toReply(answered) // may throw: still at `answer`
      p.at = 'render'
      return answered
    case 'render': {
      // A view no tap turned into a body is an error (no engine), only annotated.
      const { body } = answered as Reply
      if (body.kind === 'view')
        throw requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template: body.template })
      p.at = 'annotate'
      return answered
    }
    case 'annotate':
      p.at = 'done'
      return answered
    default:
      p.at = p.at === 'fail' ? 'render' : 'annotate'
      return errorReplied(p.cycle.deps, p.ctx, p.error, answered as Reply | undefined)
  }
}

/** What step `p.at` threw: `fail` next, or the kernel's own error reply when `fail` threw. */
function failed(p: Progress, error: unknown): unknown {
  switch (p.at) {
    case 'fail':
    case 'failRender':
      logRequestError(p.cycle.deps.logger(), p.ctx, 'error hook failed', { error })
      return settle(p, undefined)
    case 'annotate':
    case 'done':
      // `annotate` isolates its taps: what it throws is a kernel bug, for the server's bare 500.
      throw error
    default:
      if (p.at === 'answer') actionEnded(p.ctx, p)
      p.error = error
      p.at = p.at === 'render' ? 'failRender' : 'fail'
      return undefined
  }
}

/** Maintenance (a 503 unless the path is exempt), then the `request` hook: a reply, or none. */
function admit({ cycle, ctx }: Progress): MaybePromise<Reply | undefined> {
  const { maintenance, hooks, router } = cycle.deps
  ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
  const retryAfter = maintenance(ctx.log.origin)
  if (retryAfter !== undefined && !maintenance.exempts(ctx.routingPath)) {
    // JSON where the route would answer JSON.
    if (router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring)) ctx.jsonByDefault = true
    return maintenanceReply(ctx, retryAfter)
  }
  // A tap may answer (a CORS preflight) or set the match (the admin area).
  return hooks.request.isUsed() ? runBail(hooks.request, ctx) : undefined
}

/** Routing recorded; the route matched (or the fallback) to answer, else a miss's reply. */
function matched(p: Progress, found: RouteMatch | undefined): Reply | undefined {
  const { ctx } = p
  const end = ctx.log.phaseEnded('routing', p.routingStart)
  const match = found ?? missed(p)
  if (match instanceof Reply) {
    p.at = 'render'
    return match
  }
  const { route, params } = (ctx.match = match)
  ctx.params = params
  const compiled = (p.route = p.cycle.deps.routes.compiled(route))
  p.at = 'answer'
  // Built field by field: an object spread here cost ~1 µs a request (bench/before-after.ts).
  const { method } = ctx
  const event = { method, path: route.path, name: route.name, handler: compiled.name, params }
  ctx.log.record('route.matched', event, end)
  return undefined
}

/** A request no route matched: 405 when the path answers other methods, the fallback, 404. */
function missed({ cycle, ctx }: Progress): RouteMatch | Reply {
  const { router } = cycle.deps
  const allowed = router.allowedMethodsFor(ctx.method, ctx.routingPath, ctx.querystring)
  ctx.log.record('route.missed', { method: ctx.method, path: ctx.path, allowed })
  // A miss under an API's group (or a 405 of its route) answers as the API does: JSON.
  if (router.answersJson(ctx.routingPath, allowed, ctx.querystring)) ctx.jsonByDefault = true
  if (allowed.length > 0) return methodNotAllowedReply(ctx, allowed)
  if (!router.fallbackRoute) return notFoundReply(ctx)
  return { route: router.fallbackRoute, params: {} }
}

/** The route's chain, in the request scope when a plugin asked for it and the route may wait. */
function answerRoute(p: Progress): unknown {
  const { ctx } = p
  const route = p.route!
  if (!p.cycle.deps.scoped() || !route.scope.needed) return runChain(ctx, route, p)
  p.scoped = true
  p.outside = enterScope(ctx)
  try {
    return runChain(ctx, route, p)
  } finally {
    route.scope.answered()
  }
}

/** `response.prepared`, then the `annotate` hook, each tap isolated (one that throws is logged). */
function annotate({ cycle, ctx }: Progress, reply: Reply): MaybePromise<Reply> {
  ctx.log.record('response.prepared', { status: reply.status })
  const { annotate } = cycle.deps.hooks
  return annotate.isUsed() ? runEach(annotate, cycle.annotateFailed, reply, ctx) : reply
}
