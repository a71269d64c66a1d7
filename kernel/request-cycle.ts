import { RequestContext, type RequestInit } from './context.js'
import { errorReplied, logRequestError, maintenanceReply } from './error-replies.js'
import { requestErrors } from './error-codes.js'
import { EventLog } from './events.js'
import { isThenable, runBail, runEach, runWaterfall, type MaybePromise } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import { chainEnded, runChain, type Chain } from './route-chain.js'
import type { CompiledRoute, RouteScope } from './route-compile.js'
import type { RouteMatch } from './router/route.js'
import type { RequestCycle } from './request-cycle-deps.js'
import { enterRequest, enterScope, restoreScope } from './scope.js'

// One request through the kernel, its steps in order in one generator (`steps`). A step yields its
// answer, now or promised; `advance`, the one place that tells the two apart, resumes the steps at
// once with an answer that came now and awaits only a promise, so a synchronous route creates no
// promise (test/e2e/lean-request.test.ts).

type Steps = Generator<unknown, Reply, unknown>

/** One request on its way: what its steps share with `advance` and the route's chain. */
class Progress implements Chain {
  actionStart = -1
  middlewareStart = -1
  inner = 0
  /** The scope of the route whose chain is answering, while it is. */
  answering: RouteScope | undefined = undefined
  /** In the request scope, and the store it replaced. */
  scoped = false
  outside: RequestContext | undefined = undefined

  constructor(
    readonly cycle: RequestCycle,
    readonly ctx: RequestContext,
  ) {}
}

/** One request: its context and event log made, its steps run; the kernel's entry. */
export function respond(
  cycle: RequestCycle,
  init: RequestInit,
  log = new EventLog(),
): MaybePromise<Reply> {
  const ctx = new RequestContext(cycle.deps.kernel, init, log)
  // `currentContext()` finds the request in everything that runs synchronously from here.
  const previous = enterRequest(ctx)
  try {
    return start(new Progress(cycle, ctx))
  } finally {
    enterRequest(previous)
  }
}

/** {@link respond} for the socket server: `deliver(to, …)` the reply or a kernel bug's error. */
export function respondTo<T>(
  cycle: RequestCycle,
  init: RequestInit,
  to: T,
  deliver: (to: T, reply: Reply | undefined, error: unknown) => void,
): void {
  try {
    const reply = respond(cycle, init)
    if (!isThenable(reply)) return deliver(to, reply, undefined)
    reply.then(
      (value) => deliver(to, value, undefined),
      (error: unknown) => deliver(to, undefined, error),
    )
  } catch (error) {
    // A kernel bug. (`deliver` must not throw: it would be called twice.)
    deliver(to, undefined, error)
  }
}

/** The request's steps begun, and run for as long as each answers now. */
function start(p: Progress): MaybePromise<Reply> {
  const run = steps(p)
  return advance(p, run, run.next())
}

/**
 * The steps resumed while each answers now, the first promise handed to {@link later}; then the
 * store the scope replaced made current again, for the socket's next request.
 */
function advance(
  p: Progress,
  run: Steps,
  next: IteratorResult<unknown, Reply>,
): MaybePromise<Reply> {
  while (next.done !== true && !isThenable(next.value)) next = run.next(next.value)
  const reply = next.done === true ? next.value : later(p, run, next.value as Promise<unknown>)
  if (p.scoped) restoreScope(p.outside, next.done === true)
  return reply
}

/** The steps resumed with what a step's promise settled to, or thrown what it rejected with. */
function later(p: Progress, run: Steps, pending: Promise<unknown>): Promise<Reply> {
  // A route whose chain waited keeps the scope, from before the socket's next request on
  // (test/kernel/scope.test.ts, the burst).
  p.answering?.waited()
  return pending.then(
    (value) => advance(p, run, run.next(value)),
    (error: unknown) => advance(p, run, run.throw(error)),
  )
}

/**
 * Admit (maintenance, the `request` hook), find (a match a `request` tap set, the `route` hook or
 * the router), answer (the route's chain), render, annotate. What a step before `annotate` throws
 * becomes the error reply, rendered when it came before `render` (test/kernel/errors.test.ts);
 * `annotate` isolates its taps.
 */
function* steps(p: Progress): Steps {
  const { ctx } = p
  const { hooks, routing } = p.cycle.deps
  let reply: Reply | undefined
  try {
    // A `request` tap may answer (a CORS preflight) or set the match (the admin area).
    reply = admit(p)
    if (reply === undefined && hooks.request.isUsed())
      reply = (yield runBail(hooks.request, ctx)) as Reply | undefined
    if (reply === undefined) {
      const routingStart = ctx.log.now()
      // With only the kernel's own `route` taps, the router's match directly (no loop).
      const found =
        ctx.match ?? (routing.only() ? routing.direct(ctx) : yield runBail(hooks.route, ctx))
      const route = matched(p, found as RouteMatch | undefined, routingStart)
      if (route instanceof Reply) reply = route
      else {
        p.answering = route.scope
        try {
          reply = toReply(yield answer(p, route))
        } finally {
          p.answering = undefined
          if (p.scoped) route.scope.answered()
          chainEnded(p)
        }
      }
    }
  } catch (error) {
    reply = yield* fail(p, error)
  }
  try {
    if (hooks.render.isUsed()) reply = (yield runWaterfall(hooks.render, reply, ctx)) as Reply
    // A view no tap turned into a body is an error (no engine), only annotated.
    if (reply.body.kind === 'view')
      throw requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template: reply.body.template })
  } catch (error) {
    reply = yield* fail(p, error)
  }
  ctx.log.record('response.prepared', { status: reply.status })
  if (!hooks.annotate.isUsed()) return reply
  return (yield runEach(hooks.annotate, p.cycle.annotateFailed, reply, ctx)) as Reply
}

/** `request.received`, then maintenance: a 503 (JSON where the route would answer JSON). */
function admit({ cycle, ctx }: Progress): Reply | undefined {
  const { maintenance, router } = cycle.deps
  ctx.log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
  const retryAfter = maintenance(ctx.log.origin)
  if (retryAfter === undefined || maintenance.exempts(ctx.routingPath)) return undefined
  if (router.answersJson(ctx.routingPath, [ctx.method], ctx.querystring)) ctx.jsonByDefault = true
  return maintenanceReply(ctx, retryAfter)
}

/** Routing recorded; the route matched (or the fallback) compiled, else a miss's reply. */
function matched(p: Progress, found: RouteMatch | undefined, start: number): CompiledRoute | Reply {
  const { ctx } = p
  const end = ctx.log.phaseEnded('routing', start)
  const match = found ?? p.cycle.deps.routing.missed(ctx)
  if (match instanceof Reply) return match
  const { route, params } = (ctx.match = match)
  ctx.params = params
  const compiled = p.cycle.deps.routes.compiled(route)
  // Field by field: an object spread here cost ~1 µs a request (bench/before-after.ts).
  const { method } = ctx
  const event = { method, path: route.path, name: route.name, handler: compiled.name, params }
  ctx.log.record('route.matched', event, end)
  return compiled
}

/** The route's chain, in the request scope when a plugin asked for it and the route may wait. */
function answer(p: Progress, route: CompiledRoute): unknown {
  if (p.cycle.deps.scoped() && route.scope.needed) {
    p.scoped = true
    p.outside = enterScope(p.ctx)
  }
  return runChain(p, route)
}

/** The `error` hook's reply to `error`, else the kernel's own; a tap that throws is logged. */
function* fail({ cycle, ctx }: Progress, error: unknown): Steps {
  const { hooks } = cycle.deps
  let answered: Reply | undefined
  try {
    if (hooks.error.isUsed()) answered = (yield runBail(hooks.error, error, ctx)) as typeof answered
  } catch (thrown) {
    logRequestError(cycle.deps.logger(), ctx, 'error hook failed', { error: thrown })
  }
  return errorReplied(cycle.deps, ctx, error, answered)
}
