import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { isThenable } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import { RouteScope } from './scope.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware, Next } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

// A route compiled at boot: what it refers to by name resolved, and which of its chain's two
// variants it runs decided once. A route with nothing that waits (no middleware, bindings or body
// schema, a handler that is not `async`) runs `callRoute`: the controller made, the handler
// called, its result as it came. Any other runs `awaitRoute`, plain `async`/`await`: middleware
// onion-style around the action. Each step is a named function (`farm-studio walk` follows them).
// The request cycle (kernel/request-cycle.ts) looks at whether an answer came now or later; here
// only `callRoute` does, for a handler not declared `async` that returned a promise anyway.

/** A route compiled at boot: its parts resolved, its chain's variant chosen. */
export interface CompiledRoute {
  readonly route: Route
  /** The handler as `route.matched` and `fw route:list` show it. */
  readonly name: string
  /**
   * True when some part of the route waits (middleware, bindings, a body schema, an `async`
   * handler): it runs {@link awaitRoute}, else {@link callRoute}.
   */
  readonly waits: boolean
  /** Middleware, outermost first. */
  readonly layers: readonly Layer[]
  /** Placeholder name and the loader of its model, for implicit binding. */
  readonly bindings: readonly (readonly [string, BindingLoader])[]
  /** The body check, compiled on first need (ajv costs a command that only lists routes). */
  readonly check: (() => BodyCheck) | undefined
  /** How the handler is called: a plain function, a controller's method, a classic action. */
  readonly calls: 'function' | 'method' | 'classic'
  readonly handler: Handler | undefined
  readonly controller: ControllerClass | undefined
  readonly method: string
  /** Whether the chain runs in the request scope, when that is on (kernel/scope.ts). */
  readonly scope: RouteScope
}

type Controller = Record<string, (...args: unknown[]) => unknown>

/** One middleware of a route and its name (for `FW_ERR_MIDDLEWARE_NO_REPLY`). */
interface Layer {
  readonly fn: Middleware
  readonly name: string
}

/** What compiling a route needs from the kernel: what routes refer to by name. */
export interface ChainDeps {
  middleware(name: string): Middleware | undefined
  controller(name: string): ControllerClass | undefined
  binding(model: string): BindingLoader | undefined
}

/** What a chain's parts share for one request: the time the controller and action phases took. */
interface Inner {
  duration: number
}

/**
 * Compiles a route: its named middleware and bindings resolved (an unknown name fails here, at
 * boot), its handler resolved to a function or a controller's method, and its chain's variant
 * chosen: {@link callRoute} when nothing of the route waits, else {@link awaitRoute}.
 */
export function compileRoute(route: Route, deps: ChainDeps): CompiledRoute {
  const [handler, controller, method] = resolveHandler(route, deps)
  const layers = route.middleware.map((name): Layer => {
    const fn = deps.middleware(name)
    if (!fn) throw compileErrors.error('FW_ERR_MIDDLEWARE_UNKNOWN', { route: route.path, name })
    return { fn, name }
  })
  const bindings = Object.entries(route.bindings).map(([param, model]) => {
    const loader = deps.binding(model)
    if (loader === undefined)
      throw compileErrors.error('FW_ERR_BINDING_UNKNOWN', { route: route.path, param, model })
    return [param, loader] as const
  })
  const schema = route.schema?.body
  let compiledCheck: BodyCheck | undefined
  const check =
    schema === undefined ? undefined : () => (compiledCheck ??= compileBodyCheck(route, schema))
  const target = handler ?? controller!.prototype[method]
  const waits =
    layers.length > 0 || bindings.length > 0 || check !== undefined || isAsyncFunction(target)
  const calls = handler !== undefined ? 'function' : route.classic ? 'classic' : 'method'
  const [name, scope] = [handlerName(route), new RouteScope(waits)]
  return { route, name, waits, layers, bindings, check, calls, handler, controller, method, scope }
}

/**
 * Compiles what the route compiles on first need (its body schema), now: the kernel calls it for
 * every route before it listens, so a served route never compiles on a request and a broken
 * schema fails the start.
 */
export function prepareRoute(compiled: CompiledRoute): void {
  compiled.check?.()
}

/**
 * The chain of a route that waits: its middleware, if any, around its action. Rejects with what a
 * part threw; the cycle makes that the error reply.
 */
export function awaitRoute(ctx: RequestContext, compiled: CompiledRoute): Promise<Reply> {
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
  const log = ctx.log
  const from = log.now()
  const controller = makeController(ctx, compiled.controller, from)
  const start = controller === undefined ? from : log.now()
  try {
    return toReply(await callHandler(ctx, compiled, controller))
  } finally {
    const end = ended(ctx, start)
    if (inner !== undefined) inner.duration += end - from
  }
}

/**
 * The synchronous route's action: the controller made, the handler called, its result as it came.
 * A handler not declared `async` that returned a promise anyway has its phase recorded once it
 * settled (test/kernel/hooks.test.ts).
 */
export function callRoute(ctx: RequestContext, compiled: CompiledRoute): unknown {
  const log = ctx.log
  const from = log.now()
  const controller = makeController(ctx, compiled.controller, from)
  const start = controller === undefined ? from : log.now()
  let result: unknown
  try {
    result = callHandler(ctx, compiled, controller)
  } catch (error) {
    ended(ctx, start)
    throw error
  }
  if (!isThenable(result)) {
    ended(ctx, start)
    return result
  }
  return result.then(
    (value) => (ended(ctx, start), value),
    (error: unknown) => {
      ended(ctx, start)
      throw error
    },
  )
}

/** The route's controller made for this request (the `controller` phase); none for a function. */
function makeController(
  ctx: RequestContext,
  cls: ControllerClass | undefined,
  start: number,
): Controller | undefined {
  if (cls === undefined) return undefined
  const instance = new cls() as Controller
  const log = ctx.log
  const end = log.now()
  log.record('phase.completed', { name: 'controller', start, duration: end - start }, end)
  return instance
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

/** Records the `action` phase, also when the handler throws or rejects; its end. */
function ended(ctx: RequestContext, start: number): number {
  const log = ctx.log
  const end = log.now()
  log.record('phase.completed', { name: 'action', start, duration: end - start }, end)
  return end
}

/** The display name of a route's handler, as `fw route:list` and `route.matched` show it. */
export function handlerName(route: Route): string {
  const h = route.handler
  if (typeof h === 'string') return h
  if (typeof h === 'function') return h.name || 'closure'
  return `${h[0].name}@${h[1]}`
}

const isAsyncFunction = (fn: unknown): boolean =>
  typeof fn === 'function' && /^Async(Generator)?Function$/.test(fn.constructor.name)

/** A handler reference as a plain function, or a controller class and its method's name. */
function resolveHandler(
  route: Route,
  deps: ChainDeps,
): [Handler | undefined, ControllerClass | undefined, string] {
  const h = route.handler
  if (typeof h === 'function') return [h, undefined, '']
  let cls: ControllerClass | undefined
  let method: string
  if (typeof h === 'string') {
    const at = h.lastIndexOf('@')
    const name = at === -1 ? h : h.slice(0, at)
    method = at === -1 ? 'handle' : h.slice(at + 1)
    cls = deps.controller(name)
    if (!cls) throw compileErrors.error('FW_ERR_CONTROLLER_UNKNOWN', { route: route.path, name })
  } else {
    ;[cls, method] = h
  }
  if (typeof (cls.prototype as Record<string, unknown>)[method] !== 'function') {
    const action = `${cls.name}.${method}`
    throw compileErrors.error('FW_ERR_CONTROLLER_ACTION', { route: route.path, action })
  }
  return [undefined, cls, method]
}
