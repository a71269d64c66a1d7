import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { Reply, toReply } from './reply.js'
import type { CompiledRoute, Layer } from './route-compile.js'

// A route's chain on a request, in the variant chosen at boot (kernel/route-compile.ts): a route
// with nothing that waits calls its handler (`callAction`) and hands back its answer as it came;
// any other runs `action`, plain `async`/`await`, inside its middleware (`throughMiddleware`).

type Controller = Record<string, (...args: unknown[]) => unknown>

/** When a handler's `action` phase began, until it is recorded (-1: none is pending). */
export interface ActionTiming {
  actionStart: number
}

/** An awaited chain's timing: also the time its controller and action took, under middleware. */
interface ChainTiming extends ActionTiming {
  inner: number
}

/**
 * What the route's handler answered, now or promised; a handler answering now leaves its `action`
 * phase in `timing` for the caller to end once the answer settled.
 */
export function runChain(
  ctx: RequestContext,
  compiled: CompiledRoute,
  timing: ActionTiming,
): unknown {
  if (!compiled.waits) return callAction(ctx, compiled, timing)
  const chain: ChainTiming = { actionStart: -1, inner: 0 }
  if (compiled.layers.length === 0) return action(ctx, compiled, chain)
  return throughMiddleware(ctx, compiled, chain)
}

/**
 * The middleware, outermost first, each given the rest of the chain as `next()`; then the
 * `middleware` phase: the chain's time less the controller's and the action's. A layer costs its
 * own promise and the check of its answer's (`bench/limits.ts` measures a layer's cost).
 */
async function throughMiddleware(
  ctx: RequestContext,
  compiled: CompiledRoute,
  chain: ChainTiming,
): Promise<Reply> {
  const start = ctx.log.now()
  try {
    return await dispatch(ctx, compiled, 0, chain)
  } finally {
    const end = ctx.log.now()
    const duration = Math.max(0, end - start - chain.inner)
    ctx.log.record('phase.completed', { name: 'middleware', start, duration }, end)
  }
}

/** Middleware `i` given the rest as `next()`, or the action after the last; always a promise. */
function dispatch(
  ctx: RequestContext,
  compiled: CompiledRoute,
  i: number,
  chain: ChainTiming,
): Promise<Reply> {
  if (i === compiled.layers.length) return action(ctx, compiled, chain)
  const layer = compiled.layers[i]!
  try {
    const reply = layer.fn(ctx, () => dispatch(ctx, compiled, i + 1, chain))
    return reply.then((answered) => replied(layer, answered))
  } catch (error) {
    return Promise.reject(error as Error)
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
  chain: ChainTiming,
): Promise<Reply> {
  for (const [param, loader] of compiled.bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) return notFoundReply(ctx)
    ctx.models[param] = loaded
  }
  if (compiled.check !== undefined) await compiled.check()(ctx)
  const from = ctx.log.now()
  try {
    return toReply(await callAction(ctx, compiled, chain))
  } finally {
    actionEnded(ctx, chain)
    chain.inner += ctx.log.now() - from
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
