import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { Reply, toReply } from './reply.js'
import type { CompiledRoute, Layer } from './route-compile.js'
import type { Next } from './types.js'

// A route's chain on a request, in the variant chosen at boot (kernel/route-compile.ts): a route
// with nothing that waits runs `callAction`, its answer handed back as it came (the cycle ends the
// `action` phase once it settled); any other runs `action`, plain `async`/`await`, inside its
// middleware (`throughMiddleware`).

type Controller = Record<string, (...args: unknown[]) => unknown>

/** When a handler's `action` phase began, until it is recorded (-1: none is pending). */
export interface ActionTiming {
  actionStart: number
}

/** The time a request's controller and action phases took, under middleware. */
interface Inner {
  duration: number
}

/**
 * What the route's handler answered, now or promised (`timing` holds its `action` phase for the
 * caller to end); what a part throws or rejects with, the cycle makes the error reply.
 */
export function runChain(
  ctx: RequestContext,
  compiled: CompiledRoute,
  timing: ActionTiming,
): unknown {
  if (!compiled.waits) return callAction(ctx, compiled, timing)
  return compiled.layers.length === 0
    ? action(ctx, compiled, undefined)
    : throughMiddleware(ctx, compiled)
}

/**
 * The middleware, outermost first, each given the rest of the chain as `next()`; then the
 * `middleware` phase: the chain's time less the action's and the controller's. One promise per
 * layer, the middleware's own (`bench/limits.ts` measures a layer's cost).
 */
async function throughMiddleware(ctx: RequestContext, compiled: CompiledRoute): Promise<Reply> {
  const log = ctx.log
  const start = log.now()
  const inner: Inner = { duration: 0 }
  try {
    const outer = compiled.layers[0]!
    return replied(outer, await outer.fn(ctx, nextOf(ctx, compiled, 1, inner)))
  } finally {
    const end = log.now()
    const duration = Math.max(0, end - start - inner.duration)
    log.record('phase.completed', { name: 'middleware', start, duration }, end)
  }
}

/** `next()` for the layer before `i`: middleware `i`, or the action after the last. */
function nextOf(ctx: RequestContext, compiled: CompiledRoute, i: number, inner: Inner): Next {
  return () => {
    // What `next()` gives a middleware is a promise, also of what fails synchronously.
    try {
      if (i === compiled.layers.length) return action(ctx, compiled, inner)
      const layer = compiled.layers[i]!
      const reply = layer.fn(ctx, nextOf(ctx, compiled, i + 1, inner))
      return reply.then((answered) => replied(layer, answered))
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }
}

/** What a middleware answered, which must be a reply (test/kernel/middleware.test.ts). */
function replied(layer: Layer, reply: Reply): Reply {
  if (reply instanceof Reply) return reply
  throw compileErrors.error('FW_ERR_MIDDLEWARE_NO_REPLY', { name: layer.name })
}

/**
 * Bound models loaded (a missing one is a 404), the body checked, the handler's answer made a
 * reply, the `action` phase recorded also when it fails (test/kernel/hooks.test.ts). Bindings run
 * inside the middleware: an unauthenticated caller cannot learn which records exist.
 */
async function action(
  ctx: RequestContext,
  compiled: CompiledRoute,
  inner: Inner | undefined,
): Promise<Reply> {
  for (const [param, loader] of compiled.bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) return notFoundReply(ctx)
    ctx.models[param] = loaded
  }
  if (compiled.check !== undefined) await compiled.check()(ctx)
  const from = ctx.log.now()
  const timing: ActionTiming = { actionStart: -1 }
  try {
    return toReply(await callAction(ctx, compiled, timing))
  } finally {
    actionEnded(ctx, timing)
    if (inner !== undefined) inner.duration += ctx.log.now() - from
  }
}

/** The controller made (the `controller` phase), the `action` phase begun, the handler called. */
function callAction(ctx: RequestContext, compiled: CompiledRoute, timing: ActionTiming): unknown {
  const from = ctx.log.now()
  const cls = compiled.controller
  const controller = cls === undefined ? undefined : (new cls() as Controller)
  timing.actionStart = controller === undefined ? from : ctx.log.phaseEnded('controller', from)
  switch (compiled.calls) {
    case 'function':
      return compiled.handler!(ctx)
    case 'method':
      return controller![compiled.method]!(ctx)
    case 'classic':
      return controller![compiled.method]!(ctx.match?.legacy?.args ?? [], ctx)
  }
}

/** Records the `action` phase `timing` holds, once; nothing when none is pending. */
export function actionEnded(ctx: RequestContext, timing: ActionTiming): void {
  if (timing.actionStart < 0) return
  ctx.log.phaseEnded('action', timing.actionStart)
  timing.actionStart = -1
}
