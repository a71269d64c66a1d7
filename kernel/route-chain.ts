import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { isThenable } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import type { CompiledRoute, Layer } from './route-compile.js'
import type { Next } from './types.js'

// A route's chain on a request, in the variant chosen at boot (kernel/route-compile.ts), run by
// `runChain`: a route with nothing that waits runs `callAction`: the controller made, the handler
// called, its result as it came. Any other runs `action`, plain `async`/`await`, and its middleware
// onion-style around it (`throughMiddleware`). Each step is a named function (`farm-studio walk`
// follows them). Only `callAction` looks at whether an answer came now or later: a handler not
// declared `async` may return a promise anyway, and `settled` records its phase once it did.

type Controller = Record<string, (...args: unknown[]) => unknown>

/** What a chain's parts share for one request: the time the controller and action phases took. */
interface Inner {
  duration: number
}

/**
 * The route's chain in the variant chosen at boot: what the handler answered, now or promised.
 * Throws or rejects with what a part failed with; the cycle makes that the error reply.
 */
export function runChain(ctx: RequestContext, compiled: CompiledRoute): unknown {
  if (!compiled.waits) return callAction(ctx, compiled, undefined)
  return compiled.layers.length === 0
    ? action(ctx, compiled, undefined)
    : throughMiddleware(ctx, compiled)
}

/**
 * The middleware, outermost first, each given as `next()` the rest of the chain, around the
 * action; then the `middleware` phase: the chain's time less the action's and the controller's.
 * One promise per layer, the middleware's own: only an inner layer's reply is checked through a
 * `then` (the outermost is checked here). `bench/limits.ts` measures a layer's cost.
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
 * The action: bound models loaded (a missing one is a 404 whatever the body), the body checked,
 * the handler called and its result made a reply. Bindings run inside the middleware, so
 * authentication answers first and an unauthenticated caller cannot learn which records exist.
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
  return toReply(await callAction(ctx, compiled, inner))
}

/**
 * The controller made and the handler called: its result as it came, the `action` phase recorded
 * once it settled, also when it throws or rejects (test/kernel/hooks.test.ts). A handler not
 * declared `async` that returned a promise anyway has its route scoped from then on. `inner`, under
 * middleware, adds the time of both phases.
 */
function callAction(
  ctx: RequestContext,
  compiled: CompiledRoute,
  inner: Inner | undefined,
): unknown {
  const from = ctx.log.now()
  // The controller made for this request is the `controller` phase; a plain function has none.
  const cls = compiled.controller
  const controller = cls === undefined ? undefined : (new cls() as Controller)
  const start = controller === undefined ? from : ctx.log.phaseEnded('controller', from)
  let result: unknown
  try {
    result = callHandler(ctx, compiled, controller)
  } catch (error) {
    ended(ctx, from, start, inner)
    throw error
  }
  if (!isThenable(result)) {
    ended(ctx, from, start, inner)
    return result
  }
  compiled.scope.waited()
  return settled(ctx, result, from, start, inner)
}

/** {@link callAction} once the handler's promise settled. */
async function settled(
  ctx: RequestContext,
  pending: Promise<unknown>,
  from: number,
  start: number,
  inner: Inner | undefined,
): Promise<unknown> {
  try {
    return await pending
  } finally {
    ended(ctx, from, start, inner)
  }
}

/** The handler: the plain function, or the method of the controller made for this request. */
function callHandler(
  ctx: RequestContext,
  compiled: CompiledRoute,
  controller: Controller | undefined,
): unknown {
  switch (compiled.calls) {
    case 'function':
      return compiled.handler!(ctx)
    case 'method':
      return controller![compiled.method]!(ctx)
    case 'classic':
      return controller![compiled.method]!(ctx.match?.legacy?.args ?? [], ctx)
  }
}

/** Records the `action` phase (from `start`), and under middleware the chain's inner time. */
function ended(ctx: RequestContext, from: number, start: number, inner: Inner | undefined): void {
  const end = ctx.log.phaseEnded('action', start)
  if (inner !== undefined) inner.duration += end - from
}
