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
import { runChain } from './route-chain.js'
import type { CompiledRoute } from './route-compile.js'
import type { RouteMatch } from './router/route.js'
import type { RequestCycle } from './request-cycle-deps.js'
import { enterRequest, enterScope, leaveScope, restoreScope } from './scope.js'

// One request through the kernel, in two variants written once each. `cycleNow` runs it in straight
// calls while every part answers synchronously: admission (maintenance, the `request` hook),
// `routeNow` (the `route` hook or the router), `answerRoute` (the chain, kernel/route-chain.ts),
// then `finish` (the `render` and `annotate` hooks). The first part that returns a promise hands the
// rest to `cycleLater`, plain `async`/`await` from the step named by its `at` on: those hand-overs
// are the only places that look at whether an answer came now. A route whose taps and handler
// answer synchronously creates no promise (test/e2e/lean-request.test.ts); straight calls rather
// than a step loop keep it as fast as before (bench/before-after.ts). A request never throws or
// rejects out of here: a failure becomes the error reply (test/kernel/errors.test.ts).

/** Where `cycleLater` takes over: the step whose promise it is handed. */
type At = 'admitting' | 'routing' | 'answering' | 'rendering' | 'annotating'

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
    return cycleNow(cycle, ctx)
  } finally {
    enterRequest(previous)
  }
}

/** The cycle while every part answers now: admission, then `routeNow` unless a tap answered. */
function cycleNow(cycle: RequestCycle, ctx: RequestContext): MaybePromise<Reply> {
  const { maintenance, hooks } = cycle.deps
  ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
  try {
    const retryAfter = maintenance(ctx.log.origin)
    if (retryAfter !== undefined && !maintenance.exempts(ctx.routingPath))
      return finish(cycle, ctx, closed(cycle, ctx, retryAfter))
    // The `request` hook's taps may answer (a CORS preflight) or set the match (the admin area).
    const answered = hooks.request.isUsed() ? runBail(hooks.request, ctx) : undefined
    if (isThenable(answered)) return cycleLater(cycle, ctx, 'admitting', answered, false)
    return answered === undefined ? routeNow(cycle, ctx) : finish(cycle, ctx, answered)
  } catch (error) {
    return recover(cycle, ctx, error)
  }
}

/** Routing (the `route` hook or the router), then `routed`. Throws what a `route` tap throws. */
function routeNow(cycle: RequestCycle, ctx: RequestContext): MaybePromise<Reply> {
  const start = ctx.log.now()
  const match = ctx.match ?? findRoute(cycle, ctx)
  if (isThenable(match)) return cycleLater(cycle, ctx, 'routing', match, false, start)
  return routed(cycle, ctx, matched(cycle, ctx, match, start))
}

/** A miss's reply finished, or the route's chain answered. */
function routed(
  cycle: RequestCycle,
  ctx: RequestContext,
  found: Reply | CompiledRoute,
): MaybePromise<Reply> {
  return found instanceof Reply ? finish(cycle, ctx, found) : answerRoute(cycle, ctx, found)
}

/**
 * The route's chain, its answer a reply (what it throws is the error reply), then `finish`. When a
 * plugin asked for the request scope and the route may wait (test/kernel/scope.test.ts), the chain
 * runs in it: entered around the calls made here (`enterWith` and a restore, as `storage.run` does
 * it), left once the reply is ready, here, by `leaveWhenReady` or by the `cycleLater` it was handed
 * to (test/kernel/scope.test.ts).
 */
function answerRoute(
  cycle: RequestCycle,
  ctx: RequestContext,
  compiled: CompiledRoute,
): MaybePromise<Reply> {
  const scoped = cycle.deps.scoped() && compiled.scope.needed
  const outside = scoped ? enterScope(ctx) : undefined
  let reply: MaybePromise<Reply>
  try {
    const result = runChain(ctx, compiled)
    if (isThenable(result)) return cycleLater(cycle, ctx, 'answering', result, scoped)
    reply = finish(cycle, ctx, toReply(result))
  } catch (error) {
    reply = recover(cycle, ctx, error)
  } finally {
    if (scoped) restoreScope(outside)
    if (scoped) compiled.scope.answered()
  }
  if (!scoped) return reply
  if (isThenable(reply)) return leaveWhenReady(reply)
  leaveScope()
  return reply
}

/** Leaves the request scope once a reply its taps are still making (`error`, `render`) is ready. */
async function leaveWhenReady(reply: Promise<Reply>): Promise<Reply> {
  try {
    return await reply
  } finally {
    leaveScope()
  }
}

/** The error reply for what the route (or admission) threw, then `finish`. */
function recover(cycle: RequestCycle, ctx: RequestContext, error: unknown): MaybePromise<Reply> {
  const answered = fail(cycle, ctx, error)
  if (isThenable(answered)) return cycleLater(cycle, ctx, 'answering', answered, false)
  return finish(cycle, ctx, answered)
}

/**
 * `render`, then `annotate`, on whatever answered: a reply of the kernel's, a `request` tap's, a
 * route's or an error reply. What `render` fails with is the error reply, not rendered again; a
 * view no tap turned into a body is an error (no engine).
 */
function finish(cycle: RequestCycle, ctx: RequestContext, answered: Reply): MaybePromise<Reply> {
  const { render } = cycle.deps.hooks
  let reply: MaybePromise<Reply>
  try {
    reply = render.isUsed() ? runWaterfall(render, answered, ctx) : answered
    if (isThenable(reply)) return cycleLater(cycle, ctx, 'rendering', reply, false)
    if (reply.body.kind === 'view') reply = fail(cycle, ctx, noViewEngine(reply))
  } catch (error) {
    reply = fail(cycle, ctx, error)
  }
  if (isThenable(reply)) return cycleLater(cycle, ctx, 'annotating', reply, false)
  return annotate(cycle, ctx, reply)
}

/**
 * The cycle from its first promise on, plain `async`/`await`: `pending` is what step `at` waits
 * for, and the steps after it are awaited as `cycleNow` calls them (a step that hands a promise of
 * its own to another `cycleLater` included). `scoped`: the route's chain ran in the request scope,
 * which this leaves once the reply is ready.
 */
async function cycleLater(
  cycle: RequestCycle,
  ctx: RequestContext,
  at: At,
  pending: Promise<unknown>,
  scoped: boolean,
  start = 0,
): Promise<Reply> {
  let reply: Reply
  try {
    try {
      const value = await pending
      if (at === 'admitting' && value === undefined) return await routeNow(cycle, ctx)
      if (at === 'routing') {
        return await routed(cycle, ctx, matched(cycle, ctx, value as RouteMatch | undefined, start))
      }
      reply = toReply(value)
      if (at === 'rendering' && reply.body.kind === 'view') throw noViewEngine(reply)
    } catch (error) {
      reply = await fail(cycle, ctx, error)
    }
    // What `render` answered, or failed with, is only annotated.
    if (at === 'rendering' || at === 'annotating') return annotate(cycle, ctx, reply)
    return await finish(cycle, ctx, reply)
  } finally {
    if (scoped) leaveScope()
  }
}

/** The maintenance answer (503); JSON where the route would answer JSON. */
function closed(cycle: RequestCycle, ctx: RequestContext, retryAfter: number): Reply {
  if (cycle.deps.router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring))
    ctx.jsonByDefault = true
  return maintenanceReply(ctx, retryAfter)
}

/** The `route` hook's match; with only the kernel's own taps, the router's directly (no loop). */
function findRoute(cycle: RequestCycle, ctx: RequestContext): MaybePromise<RouteMatch | undefined> {
  const { routing, hooks } = cycle.deps
  return routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
}

/** Records routing; a miss's reply (405, 404), else the route matched (or the fallback). */
function matched(
  cycle: RequestCycle,
  ctx: RequestContext,
  found: RouteMatch | undefined,
  start: number,
): Reply | CompiledRoute {
  const log = ctx.log
  const end = log.phaseEnded('routing', start)
  const match = found ?? missed(cycle, ctx)
  if (match instanceof Reply) return match
  const { route, params } = (ctx.match = match)
  ctx.params = params
  const compiled = cycle.deps.routes.compiled(route)
  // Built field by field: an object spread here cost ~1 µs a request (bench/before-after.ts).
  const { method } = ctx
  const handler = compiled.name
  log.record('route.matched', { method, path: route.path, name: route.name, handler, params }, end)
  return compiled
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
 * The error reply for what was thrown: the `error` hook's answer (a tap that fails itself is
 * logged and skipped), else the kernel's own (kernel/error-replies.ts). Never throws.
 */
function fail(cycle: RequestCycle, ctx: RequestContext, error: unknown): MaybePromise<Reply> {
  const { hooks } = cycle.deps
  let custom: MaybePromise<Reply | undefined>
  try {
    custom = hooks.error.isUsed() ? runBail(hooks.error, error, ctx) : undefined
  } catch (hookError) {
    custom = errorHookFailed(cycle, ctx, hookError)
  }
  if (isThenable(custom)) return failLater(cycle, ctx, error, custom)
  return errorReplied(cycle.deps, ctx, error, custom)
}

/** {@link fail} once an `error` tap's promise settled. */
async function failLater(
  cycle: RequestCycle,
  ctx: RequestContext,
  error: unknown,
  custom: Promise<Reply | undefined>,
): Promise<Reply> {
  let reply: Reply | undefined
  try {
    reply = await custom
  } catch (hookError) {
    reply = errorHookFailed(cycle, ctx, hookError)
  }
  return errorReplied(cycle.deps, ctx, error, reply)
}

function errorHookFailed(cycle: RequestCycle, ctx: RequestContext, hookError: unknown): undefined {
  logRequestError(cycle.deps.logger(), ctx, 'error hook failed', { error: hookError })
  return undefined
}

/** `response.prepared`, then the `annotate` hook (headers), each tap isolated; the reply. */
function annotate(cycle: RequestCycle, ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
  ctx.log.record('response.prepared', { status: reply.status })
  const { annotate } = cycle.deps.hooks
  if (!annotate.isUsed()) return reply
  // One tap that throws is reported and the others still run; the result is the reply.
  return runEach(annotate, cycle.annotateFailed, reply, ctx)
}

function noViewEngine(reply: Reply): Error {
  const template = reply.body.kind === 'view' ? reply.body.template : ''
  return requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template })
}
