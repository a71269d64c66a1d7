import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { isThenable } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import { RouteScope } from './scope.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Middleware, Next } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

// A route compiled at boot: what it refers to by name resolved, and its chain composed once into
// one function of two kinds. A route with nothing that waits (no middleware, bindings or body
// schema, a handler that is not `async`) gets `call`: the controller made, the handler called, its
// result as it came. Any other gets `chain`, plain `async`/`await`: middleware onion-style around
// the action. The request cycle (kernel/request-cycle.ts) runs one or the other and is the one
// place that looks at whether an answer came now or later.

/** A route compiled at boot: its parts resolved, its chain composed. */
export interface CompiledRoute {
  readonly route: Route
  /** The handler as `route.matched` and `fw route:list` show it. */
  readonly name: string
  /** The route's chain when some part of it waits; undefined when none does (then `call`). */
  readonly chain: ((ctx: RequestContext) => Promise<Reply>) | undefined
  /**
   * The handler of a route whose parts are all synchronous, called with its `action` phase
   * recorded: its result as the handler returned it (a promise only from a handler that is not
   * declared `async` but returned one anyway: `ended` records the phase once it settled).
   */
  readonly call: (ctx: RequestContext) => unknown
  /** Whether the chain runs in the request scope, when that is on (kernel/scope.ts). */
  readonly scope: RouteScope
  /** Compiles the body schema now (the kernel calls it before it listens). */
  prepare(): void
}

/** The handler, called for one request with the controller made for it (if any). */
type Invoke = (ctx: RequestContext, controller: Controller | undefined) => unknown
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
 * boot), its handler resolved to a function or a controller's method, and its chain composed: the
 * synchronous `call` when nothing of the route waits, else the `async` `chain`.
 */
export function compileRoute(route: Route, deps: ChainDeps): CompiledRoute {
  const [invoke, controller, target] = resolveHandler(route, deps)
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
  const parts: ActionParts = { invoke, controller, bindings, check }
  const mayWait =
    layers.length > 0 || bindings.length > 0 || check !== undefined || isAsyncFunction(target)
  const chain = !mayWait
    ? undefined
    : layers.length === 0
      ? (ctx: RequestContext) => action(ctx, parts, undefined)
      : (ctx: RequestContext) => throughMiddleware(ctx, layers, parts)
  return {
    route,
    name: handlerName(route),
    chain,
    call: (ctx) => call(ctx, parts),
    scope: new RouteScope(mayWait),
    prepare: () => void check?.(),
  }
}

/** What the action runs: bindings, the body check, the controller and the handler. */
interface ActionParts {
  readonly invoke: Invoke
  readonly controller: ControllerClass | undefined
  readonly bindings: readonly (readonly [string, BindingLoader])[]
  readonly check: (() => BodyCheck) | undefined
}

/**
 * The middleware, outermost first, each given as `next()` the rest of the chain, around the
 * action; then the `middleware` phase: the chain's time less the action's and the controller's.
 * One promise per layer, the middleware's own: only an inner layer's reply is checked through a
 * `then` (the outermost is checked here). `bench/limits.ts` measures a layer's cost.
 */
async function throughMiddleware(
  ctx: RequestContext,
  layers: readonly Layer[],
  parts: ActionParts,
): Promise<Reply> {
  const log = ctx.log
  const start = log.now()
  const inner: Inner = { duration: 0 }
  try {
    const outer = layers[0]!
    return replied(outer, await outer.fn(ctx, nextOf(ctx, layers, 1, parts, inner)))
  } finally {
    const end = log.now()
    const duration = Math.max(0, end - start - inner.duration)
    log.record('phase.completed', { name: 'middleware', start, duration }, end)
  }
}

/** `next()` for the layer before `i`: middleware `i`, or the action after the last. */
function nextOf(
  ctx: RequestContext,
  layers: readonly Layer[],
  i: number,
  parts: ActionParts,
  inner: Inner,
): Next {
  return () => {
    // What `next()` gives a middleware is a promise, also of what fails synchronously.
    try {
      if (i === layers.length) return action(ctx, parts, inner)
      const layer = layers[i]!
      const reply = layer.fn(ctx, nextOf(ctx, layers, i + 1, parts, inner))
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
  parts: ActionParts,
  inner: Inner | undefined,
): Promise<Reply> {
  for (const [param, loader] of parts.bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) return notFoundReply(ctx)
    ctx.models[param] = loaded
  }
  if (parts.check !== undefined) await parts.check()(ctx)
  const log = ctx.log
  const from = log.now()
  const controller = makeController(ctx, parts.controller, from)
  const start = controller === undefined ? from : log.now()
  try {
    return toReply(await parts.invoke(ctx, controller))
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
function call(ctx: RequestContext, parts: ActionParts): unknown {
  const log = ctx.log
  const from = log.now()
  const controller = makeController(ctx, parts.controller, from)
  const start = controller === undefined ? from : log.now()
  let result: unknown
  try {
    result = parts.invoke(ctx, controller)
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

/**
 * A handler reference as the call the action makes (a plain function's, a controller method's,
 * a classic action's with its legacy arguments), the controller class, and the function called.
 */
function resolveHandler(
  route: Route,
  deps: ChainDeps,
): [Invoke, ControllerClass | undefined, unknown] {
  const h = route.handler
  if (typeof h === 'function') return [(ctx) => h(ctx), undefined, h]
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
  const target = (cls.prototype as Record<string, unknown>)[method]
  if (typeof target !== 'function') {
    const action = `${cls.name}.${method}`
    throw compileErrors.error('FW_ERR_CONTROLLER_ACTION', { route: route.path, action })
  }
  const invoke: Invoke = route.classic
    ? (ctx, instance) => instance![method]!(ctx.match?.legacy?.args ?? [], ctx)
    : (ctx, instance) => instance![method]!(ctx)
  return [invoke, cls, target]
}
