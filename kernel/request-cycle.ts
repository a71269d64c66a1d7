import { RequestContext, type RequestInit } from './context.js'
import {
  errorReplied,
  maintenanceReply,
  methodNotAllowedReply,
  notFoundReply,
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
import { Reply, toReply } from './reply.js'
import { awaitRoute, callRoute } from './route-chain.js'
import type { CompiledRoute } from './route-compile.js'
import type { RouteMatch } from './router/route.js'
import type { RequestCycle } from './request-cycle-deps.js'
import { enterRequest, enterScope, leaveRequest, leaveScope, restoreScope } from './scope.js'

// One request through the kernel. `respond` makes its context; then the cycle's steps run in
// order, each a named function: `admit` (maintenance, the `request` hook), `findRoute` (the
// `route` hook, or the router directly) and `dispatch` (a miss answered, or the route chosen),
// `runChain` (the route's chain, kernel/route-chain.ts), `render` and `annotate` on whatever
// answered. A step that fails hands the request to `errorReply` (the `error` hook), then to
// `render` (or straight to `annotate` when rendering failed). Every reply ends in `annotate`.
//
// `cycleNow` runs the steps synchronously while they answer synchronously (a route whose taps
// and handler do creates no promise), and the first step that answers with a promise hands the
// rest of the request to `cycleAwaiting`, plain `async`/`await` from there on: that hand-over in
// `cycleNow` is the one place the request's way branches on a promise. A request never throws or
// rejects out of here: a failure becomes the error reply (test/kernel/errors.test.ts,
// test/kernel/scope.test.ts, test/kernel/hooks.test.ts).

/** The cycle's steps, in the order a request that nothing fails takes them. */
type Step = 'admit' | 'route' | 'chain' | 'fail' | 'render' | 'annotate' | 'done'

/** Where one request is in the cycle: the step to run next, and what the steps so far found. */
class Progress {
  step: Step = 'admit'
  /** The answer so far: a reply of the kernel's, a `request` tap's, a route's, an error reply. */
  reply: Reply | undefined = undefined
  /** When routing started (the `routing` phase). */
  routingStart = 0
  compiled: CompiledRoute | undefined = undefined
  /** What a step threw, for `errorReply`; and the step after the error reply. */
  error: unknown = undefined
  afterError: Step = 'render'
  /** True once the chain entered the request scope: left when the request is answered. */
  scoped = false
  /** The request scope's store before the chain entered it (restored when this turn ends). */
  outside: RequestContext | undefined = undefined
}

/** A request answered in-process, as a client would see it (`kernel.inject`). */
export async function inject(
  cycle: RequestCycle,
  request: InjectRequest | string,
): Promise<InjectResponse> {
  const init = injectInit(request)
  const log = new EventLog()
  const reply = await respond(cycle, init, log)
  const secure = { secure: () => init.secure === true }
  return injectResponse(reply, init.method, log.all(), cycle.securityHeaders, secure)
}

/**
 * One request: its context and event log made, the cycle run; the kernel's entry (the server's
 * and `inject`'s). The reply now when every step answered synchronously, else its promise.
 */
export function respond(
  cycle: RequestCycle,
  init: RequestInit,
  log = new EventLog(),
): MaybePromise<Reply> {
  const ctx = new RequestContext(cycle.deps.kernel, init, log)
  // `currentContext()` finds the request in everything that runs synchronously from here.
  const previous = enterRequest(ctx)
  try {
    log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
    return cycleNow(cycle, ctx, new Progress())
  } finally {
    leaveRequest(previous)
  }
}

/**
 * The cycle run synchronously, step by step, until a step answers with a promise: the rest is
 * then {@link cycleAwaiting}'s. Leaves the request scope when it entered it, in this turn, and
 * when the request is answered (now, or once the rest is).
 */
function cycleNow(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
): MaybePromise<Reply> {
  let handedOver = false
  try {
    while (progress.step !== 'done') {
      try {
        const answered = runStep(cycle, ctx, progress)
        if (isThenable(answered)) {
          handedOver = true
          return cycleAwaiting(cycle, ctx, progress, answered)
        }
        takeStep(cycle, ctx, progress, answered)
      } catch (error) {
        stepFailed(cycle, ctx, progress, error)
      }
    }
    return progress.reply!
  } finally {
    if (progress.scoped) {
      restoreScope(progress.outside)
      if (!handedOver) leaveScope()
    }
  }
}

/**
 * The rest of the cycle once a step answered with a promise: that answer awaited, then each step
 * in turn, awaited when it answers with a promise too. Leaves the request scope when it is done.
 */
async function cycleAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
  pending: Promise<unknown>,
): Promise<Reply> {
  try {
    try {
      takeStep(cycle, ctx, progress, await pending)
    } catch (error) {
      stepFailed(cycle, ctx, progress, error)
    }
    while (progress.step !== 'done') {
      try {
        const answered = runStep(cycle, ctx, progress)
        takeStep(cycle, ctx, progress, isThenable(answered) ? await answered : answered)
      } catch (error) {
        stepFailed(cycle, ctx, progress, error)
      }
    }
    return progress.reply!
  } finally {
    if (progress.scoped) leaveScope()
  }
}

/** Runs the step the request is at; what it answers, now or as a promise. */
function runStep(cycle: RequestCycle, ctx: RequestContext, progress: Progress): unknown {
  switch (progress.step) {
    case 'admit':
      return admit(cycle, ctx)
    case 'route':
      return findRoute(cycle, ctx, progress)
    case 'chain':
      return runChain(cycle, ctx, progress, progress.compiled!)
    case 'fail':
      return errorReply(cycle, ctx, progress.error)
    case 'render':
      return render(cycle, ctx, progress.reply!)
    case 'annotate':
      return annotate(cycle, ctx, progress.reply!)
    case 'done':
      return progress.reply
  }
}

/** What the step's answer means for the request: the answer so far, and the next step. */
function takeStep(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
  answered: unknown,
): void {
  switch (progress.step) {
    case 'admit':
      // A `request` tap (or maintenance) that answered skips routing and the route.
      if (answered === undefined) progress.step = 'route'
      else answer(progress, answered as Reply, 'render')
      return
    case 'route':
      return dispatch(cycle, ctx, progress, answered as RouteMatch | undefined)
    case 'chain':
      return answer(progress, toReply(answered), 'render')
    case 'fail': {
      const reply = errorReplied(cycle.deps, ctx, progress.error, answered as Reply | undefined)
      return answer(progress, reply, progress.afterError)
    }
    case 'render':
      return answer(progress, viewRendered(answered as Reply), 'annotate')
    case 'annotate':
    case 'done':
      return answer(progress, answered as Reply, 'done')
  }
}

/** The answer so far is `reply`, and `next` is the step it goes to. */
function answer(progress: Progress, reply: Reply, next: Step): void {
  progress.reply = reply
  progress.step = next
}

/**
 * A step threw or rejected: the error reply next, rendered unless rendering failed. An `error`
 * tap that fails itself is logged and skipped (the kernel's own error reply); `annotate` isolates
 * its taps, so a failure there is a kernel bug, and the server answers a bare 500.
 */
function stepFailed(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
  error: unknown,
): void {
  switch (progress.step) {
    case 'fail':
      cycle.deps.logger().error('error hook failed', { error, path: ctx.path })
      return takeStep(cycle, ctx, progress, undefined)
    case 'annotate':
    case 'done':
      throw error
    default:
      progress.afterError = progress.step === 'render' ? 'annotate' : 'render'
      progress.error = error
      progress.step = 'fail'
  }
}

/** Maintenance (503), then the `request` hook, whose taps may answer (a CORS preflight). */
function admit(cycle: RequestCycle, ctx: RequestContext): MaybePromise<Reply | undefined> {
  const { maintenance, router, hooks } = cycle.deps
  const retryAfter = maintenance(ctx.log.origin)
  if (retryAfter !== undefined && !maintenance.exempts(ctx.routingPath)) {
    if (router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring)) ctx.jsonByDefault = true
    return maintenanceReply(ctx, retryAfter)
  }
  return hooks.request.isUsed() ? runBail(hooks.request, ctx) : undefined
}

/** The match a `request` tap set (the admin area does), or the `route` hook's. */
function findRoute(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
): MaybePromise<RouteMatch | undefined> {
  progress.routingStart = ctx.log.now()
  if (ctx.match !== undefined) return ctx.match
  // With only the kernel's own route taps, ask the router directly: same answer, no loop.
  const { routing, hooks } = cycle.deps
  return routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
}

/** Records routing; answers a miss (405, the fallback route, 404), or chooses a match's route. */
function dispatch(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
  found: RouteMatch | undefined,
): void {
  const log = ctx.log
  const [start, end] = [progress.routingStart, log.now()]
  log.record('phase.completed', { name: 'routing', start, duration: end - start }, end)
  const match = found ?? missed(cycle, ctx)
  if (match instanceof Reply) return answer(progress, match, 'render')
  ctx.match = match
  ctx.params = match.params
  const { route, params } = match
  const compiled = cycle.deps.routes.compiled(route)
  const { method } = ctx
  const matched = { method, path: route.path, name: route.name, handler: compiled.name, params }
  log.record('route.matched', matched, end)
  progress.compiled = compiled
  progress.step = 'chain'
}

/** A request no route matched: 405 when the path answers other methods, the fallback, 404. */
function missed(cycle: RequestCycle, ctx: RequestContext): RouteMatch | Reply {
  const { router } = cycle.deps
  const allowed = router.allowedMethodsFor(ctx.method, ctx.routingPath, ctx.querystring)
  ctx.log.record('route.missed', { method: ctx.method, path: ctx.path, allowed })
  // A miss under an API's group (or a 405 of its route) answers as the API does: JSON.
  if (router.answersJson(ctx.routingPath, allowed, ctx.querystring)) ctx.jsonByDefault = true
  if (allowed.length > 0) return methodNotAllowedReply(ctx, allowed)
  if (!router.fallbackRoute) return notFoundReply(ctx)
  return { route: router.fallbackRoute, params: {} }
}

/**
 * The route's chain, in its variant chosen at boot (kernel/route-compile.ts): {@link awaitRoute}
 * for a route that waits, else {@link callRoute}, the handler called in this turn. The chain, its
 * error reply and the reply's way back run in the request scope when a plugin asked for it and
 * the route may wait (test/kernel/scope.test.ts); `cycleNow` leaves it.
 */
function runChain(
  cycle: RequestCycle,
  ctx: RequestContext,
  progress: Progress,
  compiled: CompiledRoute,
): unknown {
  if (cycle.deps.scoped() && compiled.scope.needed) {
    progress.outside = enterScope(ctx)
    progress.scoped = true
  }
  try {
    return compiled.waits ? awaitRoute(ctx, compiled) : callRoute(ctx, compiled)
  } finally {
    if (progress.scoped) compiled.scope.answered()
  }
}

/** The `error` hook's answer for what a step threw; undefined: the kernel's own error reply. */
function errorReply(
  cycle: RequestCycle,
  ctx: RequestContext,
  error: unknown,
): MaybePromise<Reply | undefined> {
  const { hooks } = cycle.deps
  return hooks.error.isUsed() ? runBail(hooks.error, error, ctx) : undefined
}

/** The `render` hook (content negotiation, views, the toolbar) on whatever answered. */
function render(cycle: RequestCycle, ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
  const { render } = cycle.deps.hooks
  return render.isUsed() ? runWaterfall(render, reply, ctx) : reply
}

/** The rendered reply; a view no `render` tap turned into a body is an error (no engine). */
function viewRendered(reply: Reply): Reply {
  if (reply.body.kind !== 'view') return reply
  const template = reply.body.template
  throw requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template })
}

/** `response.prepared`, then the `annotate` hook (headers), each tap isolated; the reply. */
function annotate(cycle: RequestCycle, ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
  ctx.log.record('response.prepared', { status: reply.status })
  const { annotate } = cycle.deps.hooks
  if (!annotate.isUsed()) return reply
  // One tap that throws is reported and the others still run; the result is the reply.
  return runEach(annotate, cycle.annotateFailed, reply, ctx)
}
