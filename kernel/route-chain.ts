import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { Reply, toReply } from './reply.js'
import type { CompiledRoute } from './route-compile.js'

// A route's chain on a request, in the variant chosen at boot (kernel/route-compile.ts): a route
// with nothing that waits calls its handler (`callAction`) and hands back its answer as it came;
// any other runs its middleware (`dispatch`), then `action`, plain `async`/`await`.

/** A request on its way through its route's chain, and the chain's phases pending. */
export interface Chain {
  readonly ctx: RequestContext
  /** When the `action` and `middleware` phases began, until recorded (-1: none pending). */
  actionStart: number
  middlewareStart: number
  /** An awaited chain's time in its controller and action, which its middleware's leaves out. */
  inner: number
}

/** What the route's handler answered, now or promised; {@link chainEnded} once it settled. */
export function runChain(chain: Chain, route: CompiledRoute): unknown {
  if (!route.waits) return callAction(chain, route)
  if (route.layers.length > 0) chain.middlewareStart = chain.ctx.log.now()
  return dispatch(chain, route, 0)
}

/**
 * Middleware `i`, outermost first, given the rest as `next()`, or the action after the last;
 * always a promise. A layer costs its own promise and the check of its answer's (`bench/limits.ts`
 * measures a layer's cost).
 */
function dispatch(chain: Chain, route: CompiledRoute, i: number): Promise<Reply> {
  if (i === route.layers.length) return action(chain, route)
  const { fn, name } = route.layers[i]!
  try {
    // What a layer answers must be a reply (test/kernel/middleware.test.ts).
    return fn(chain.ctx, () => dispatch(chain, route, i + 1)).then((reply) => {
      if (reply instanceof Reply) return reply
      throw compileErrors.error('FW_ERR_MIDDLEWARE_NO_REPLY', { name })
    })
  } catch (error) {
    return Promise.reject(error as Error)
  }
}

/**
 * Bound models loaded (a missing one is a 404), the body checked, the handler's answer made a
 * reply, the `action` phase recorded also when it fails (test/kernel/hooks.test.ts). Bindings run
 * inside the middleware: an unauthenticated caller cannot learn which records exist.
 */
async function action(chain: Chain, route: CompiledRoute): Promise<Reply> {
  const { ctx } = chain
  for (const [param, loader] of route.bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) return notFoundReply(ctx)
    ctx.models[param] = loaded
  }
  if (route.check !== undefined) await route.check()(ctx)
  const from = ctx.log.now()
  try {
    return toReply(await callAction(chain, route))
  } finally {
    actionEnded(chain)
    chain.inner += ctx.log.now() - from
  }
}

/** The controller made (the `controller` phase), the `action` phase begun, the handler called. */
function callAction(chain: Chain, route: CompiledRoute): unknown {
  const { ctx } = chain
  const from = ctx.log.now()
  const cls = route.controller
  const controller = cls === undefined ? undefined : new cls()
  chain.actionStart = controller === undefined ? from : ctx.log.phaseEnded('controller', from)
  return route.call(ctx, controller)
}

/** Records the phases pending in `chain`, once each: `action`, then `middleware`. */
export function chainEnded(chain: Chain): void {
  actionEnded(chain)
  const { ctx, middlewareStart: start } = chain
  if (start < 0) return
  // The chain's time less the controller's and the action's (test/kernel/middleware.test.ts).
  const end = ctx.log.now()
  const duration = Math.max(0, end - start - chain.inner)
  ctx.log.record('phase.completed', { name: 'middleware', start, duration }, end)
  chain.middlewareStart = -1
}

function actionEnded(chain: Chain): void {
  if (chain.actionStart < 0) return
  chain.ctx.log.phaseEnded('action', chain.actionStart)
  chain.actionStart = -1
}
