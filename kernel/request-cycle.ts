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
import { enterRequest, enterScope, leaveRequest, leaveScope } from './scope.js'

// One request through the kernel, read top to bottom: `respond` makes its context, `handle` admits
// it (maintenance, the `request` hook), `route` finds its route (the `route` hook, or the router
// directly), `dispatch` answers a miss or runs the route's chain (kernel/route-chain.ts), and
// `finish` renders and annotates whatever answered. Every reply, whoever made it, ends there.
//
// This file is the one place where a request's way branches on a promise: each step runs
// synchronously while what it calls answers synchronously (a route whose taps and handler do
// creates no promise), and the first promise hands the rest of the request to the step's
// `…Awaiting` twin, plain `async`/`await` from there on. A request never throws or rejects out of
// here: a failure becomes the error reply (test/kernel/errors.test.ts, test/kernel/scope.test.ts).

/**
 * A request from a socket (kernel/http/server.ts), answered by the cycle's successor when one
 * took over: `answered` gets the reply now when every step was synchronous, else once it is ready
 * (or the failure, a kernel bug: the cycle turns every failure into a reply).
 */
export function answer<T>(
  cycle: RequestCycle,
  init: RequestInit,
  exchange: T,
  answered: (exchange: T, reply: Reply | undefined, error?: unknown) => void,
): void {
  let reply: MaybePromise<Reply>
  try {
    reply = respond(cycle.successor ?? cycle, init)
  } catch (error) {
    return answered(exchange, undefined, error)
  }
  if (!isThenable(reply)) return answered(exchange, reply)
  reply.then(
    (value) => answered(exchange, value),
    (error: unknown) => answered(exchange, undefined, error),
  )
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
    return handle(cycle, ctx)
  } finally {
    leaveRequest(previous)
  }
}

/** Maintenance (503), then the `request` hook, whose taps may answer (a CORS preflight). */
function handle(cycle: RequestCycle, ctx: RequestContext): MaybePromise<Reply> {
  const { maintenance, router, hooks } = cycle.deps
  ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
  try {
    const retryAfter = maintenance(ctx.log.origin)
    if (retryAfter !== undefined && !maintenance.exempts(ctx.routingPath)) {
      if (router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring))
        ctx.jsonByDefault = true
      return finish(cycle, ctx, maintenanceReply(ctx, retryAfter))
    }
    const early = hooks.request.isUsed() ? runBail(hooks.request, ctx) : undefined
    if (isThenable(early)) return handleAwaiting(cycle, ctx, early)
    return early === undefined ? route(cycle, ctx) : finish(cycle, ctx, early)
  } catch (error) {
    return finish(cycle, ctx, fail(cycle, ctx, error))
  }
}

async function handleAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  early: Promise<Reply | undefined>,
): Promise<Reply> {
  try {
    const reply = await early
    return await (reply === undefined ? route(cycle, ctx) : finish(cycle, ctx, reply))
  } catch (error) {
    return finish(cycle, ctx, fail(cycle, ctx, error))
  }
}

/** The match a `request` tap set (the admin area does), or the `route` hook's. */
function route(cycle: RequestCycle, ctx: RequestContext): MaybePromise<Reply> {
  const start = ctx.log.now()
  if (ctx.match !== undefined) return dispatch(cycle, ctx, ctx.match, start)
  // With only the kernel's own route taps, ask the router directly: same answer, no loop.
  const { routing, hooks } = cycle.deps
  const match = routing.only() ? routing.direct(ctx) : runBail(hooks.route, ctx)
  if (isThenable(match)) return matchAwaiting(cycle, ctx, match, start)
  return dispatch(cycle, ctx, match, start)
}

async function matchAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  match: Promise<RouteMatch | undefined>,
  start: number,
): Promise<Reply> {
  try {
    return await dispatch(cycle, ctx, await match, start)
  } catch (error) {
    return finish(cycle, ctx, fail(cycle, ctx, error))
  }
}

/** Records routing; answers a miss (405, the fallback route, 404), runs a match's chain. */
function dispatch(
  cycle: RequestCycle,
  ctx: RequestContext,
  found: RouteMatch | undefined,
  start: number,
): MaybePromise<Reply> {
  const log = ctx.log
  const end = log.now()
  log.record('phase.completed', { name: 'routing', start, duration: end - start }, end)
  const match = found ?? missed(cycle, ctx)
  if (match instanceof Reply) return finish(cycle, ctx, match)
  ctx.match = match
  ctx.params = match.params
  const { route, params } = match
  const compiled = cycle.deps.routes.compiled(route)
  const { method } = ctx
  const matched = { method, path: route.path, name: route.name, handler: compiled.name, params }
  log.record('route.matched', matched, end)
  // The chain (with its error reply and the response's taps) runs in the request scope when a
  // plugin asked for it and the route may wait (test/kernel/scope.test.ts); `runRoute` leaves it.
  if (!cycle.deps.scoped() || !compiled.scope.needed) return runRoute(cycle, ctx, compiled, false)
  const answered = enterScope(ctx, runRoute, cycle, ctx, compiled, true)
  compiled.scope.answered()
  return answered
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
 * The route's chain, its variant chosen at boot (kernel/route-compile.ts): {@link awaitRoute}
 * followed to its reply, or {@link callRoute}, the synchronous handler called in this turn (one that returns a promise anyway is
 * followed to its reply, and its route scoped from then on). Then the reply's way back, and the
 * request scope left once that is done. Never throws.
 */
function runRoute(
  cycle: RequestCycle,
  ctx: RequestContext,
  compiled: CompiledRoute,
  scoped: boolean,
): MaybePromise<Reply> {
  if (compiled.waits) return routeAwaiting(cycle, ctx, awaitRoute(ctx, compiled), scoped)
  let reply: MaybePromise<Reply>
  try {
    const result = callRoute(ctx, compiled)
    if (isThenable(result)) {
      compiled.scope.waited()
      return routeAwaiting(cycle, ctx, result, scoped)
    }
    reply = finish(cycle, ctx, toReply(result))
  } catch (error) {
    reply = finish(cycle, ctx, fail(cycle, ctx, error))
  }
  if (!scoped) return reply
  if (isThenable(reply)) return routeAwaiting(cycle, ctx, reply, true, true)
  leaveScope()
  return reply
}

/**
 * What a route's chain promised, as a reply (a rejection is the error reply), on its way back
 * ({@link finish}, unless `finished` already), then the request scope left when it was entered.
 */
async function routeAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  pending: Promise<unknown>,
  scoped: boolean,
  finished = false,
): Promise<Reply> {
  try {
    let reply: Reply
    try {
      reply = toReply(await pending)
    } catch (error) {
      reply = await fail(cycle, ctx, error)
    }
    return finished ? reply : await finish(cycle, ctx, reply)
  } finally {
    if (scoped) leaveScope()
  }
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
    return errorReplied(cycle.deps, ctx, error, errorHookFailed(cycle, ctx, hookError))
  }
  if (isThenable(custom)) return failAwaiting(cycle, ctx, error, custom)
  return errorReplied(cycle.deps, ctx, error, custom)
}

async function failAwaiting(
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
  cycle.deps.logger().error('error hook failed', { error: hookError, path: ctx.path })
  return undefined
}

/**
 * `render`, then `annotate`, on whatever answered: a reply of the kernel's, a `request` tap's, a
 * route's or an error reply. Never throws; an error reply that fails itself is not retried (the
 * server then answers a bare 500).
 */
function finish(
  cycle: RequestCycle,
  ctx: RequestContext,
  answered: MaybePromise<Reply>,
): MaybePromise<Reply> {
  if (isThenable(answered)) return finishAwaiting(cycle, ctx, answered)
  const rendered = render(cycle, ctx, answered)
  if (isThenable(rendered)) return annotateAwaiting(cycle, ctx, rendered)
  return annotate(cycle, ctx, rendered)
}

/** {@link finish} once what answered settled; a rejection (a route's failure) is the error reply. */
async function finishAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  answered: Promise<Reply>,
): Promise<Reply> {
  let reply: Reply
  try {
    reply = await answered
  } catch (error) {
    reply = await fail(cycle, ctx, error)
  }
  return finish(cycle, ctx, reply)
}

/**
 * The `render` hook (content negotiation, views, the toolbar): what a tap fails with becomes the
 * error reply, not rendered again. A view no tap turned into a body is an error (no engine).
 */
function render(cycle: RequestCycle, ctx: RequestContext, reply: Reply): MaybePromise<Reply> {
  const { render } = cycle.deps.hooks
  let rendered: MaybePromise<Reply>
  try {
    rendered = render.isUsed() ? runWaterfall(render, reply, ctx) : reply
  } catch (error) {
    return fail(cycle, ctx, error)
  }
  if (isThenable(rendered)) return renderAwaiting(cycle, ctx, rendered)
  return rendered.body.kind === 'view' ? fail(cycle, ctx, noViewEngine(rendered)) : rendered
}

async function renderAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  rendered: Promise<Reply>,
): Promise<Reply> {
  let reply: Reply
  try {
    reply = await rendered
  } catch (error) {
    return fail(cycle, ctx, error)
  }
  return reply.body.kind === 'view' ? fail(cycle, ctx, noViewEngine(reply)) : reply
}

async function annotateAwaiting(
  cycle: RequestCycle,
  ctx: RequestContext,
  rendered: Promise<Reply>,
): Promise<Reply> {
  return annotate(cycle, ctx, await rendered)
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
