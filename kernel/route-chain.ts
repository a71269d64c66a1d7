import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import type { EventLog } from './events.js'
import { Reply, toReply } from './reply.js'
import { RouteScope } from './scope.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

// A route compiled at boot: what it refers to by name resolved, and its chain chosen once. The
// request cycle (kernel/request-cycle.ts) runs it: `callHandler` for a route that waits for
// nothing, `awaitRoute` for one that does, then the reply's way back. Nothing here branches on
// whether something answered now or later: the cycle is the one place that does.

/** A route compiled at boot: its parts resolved, and whether its chain is the `async` one. */
export interface CompiledRoute {
  readonly route: Route
  /** Middleware, each with the check that it answered a `Reply`, outermost first. */
  readonly layers: readonly Layer[]
  /** Placeholder name and the loader of its model, for implicit binding. */
  readonly bindings: readonly (readonly [string, BindingLoader])[]
  readonly body: LazyBodyCheck | undefined
  /** A plain function handler; undefined for a controller's method. */
  readonly handler: Handler | undefined
  readonly controller: ControllerClass | undefined
  readonly method: string
  /** The handler as `route.matched` and `fw route:list` show it. */
  readonly name: string
  /**
   * True when the route waits by construction (middleware, bindings, a body schema, an `async`
   * handler): its chain is {@link awaitRoute}, and it runs in the request scope when that is on.
   */
  readonly mayWait: boolean
  /** Whether the chain runs in the request scope, when that is on (kernel/scope.ts). */
  readonly scope: RouteScope
}

/** One middleware of a route, and the check that it answered a `Reply`. */
interface Layer {
  readonly fn: Middleware
  readonly checked: (reply: Reply) => Reply
}

/** A route's body check, compiled on first need (ajv costs a command that only lists routes). */
interface LazyBodyCheck {
  check(): BodyCheck
}

/** What compiling a route needs from the kernel: what routes refer to by name. */
export interface ChainDeps {
  middleware(name: string): Middleware | undefined
  controller(name: string): ControllerClass | undefined
  binding(model: string): BindingLoader | undefined
}

/**
 * Compiles a route: its named middleware and bindings resolved (an unknown name fails here, at
 * boot), its handler resolved to a function or a controller's method, and its chain chosen: the
 * synchronous one when nothing of the route waits, else the `async` one.
 */
export function compileRoute(route: Route, deps: ChainDeps): CompiledRoute {
  const [handler, controller, method] = resolveHandler(route, deps)
  const layers = route.middleware.map((name) => {
    const fn = deps.middleware(name)
    if (!fn) throw compileErrors.error('FW_ERR_MIDDLEWARE_UNKNOWN', { route: route.path, name })
    const checked = (reply: Reply): Reply => {
      if (reply instanceof Reply) return reply
      throw compileErrors.error('FW_ERR_MIDDLEWARE_NO_REPLY', { name })
    }
    return { fn, checked }
  })
  const bindings = Object.entries(route.bindings).map(([param, model]) => {
    const loader = deps.binding(model)
    if (loader === undefined)
      throw compileErrors.error('FW_ERR_BINDING_UNKNOWN', { route: route.path, param, model })
    return [param, loader] as const
  })
  const schema = route.schema?.body
  let check: BodyCheck | undefined
  const body =
    schema === undefined ? undefined : { check: () => (check ??= compileBodyCheck(route, schema)) }
  const target = handler ?? controller!.prototype[method]
  const mayWait =
    layers.length > 0 || bindings.length > 0 || body !== undefined || isAsyncFunction(target)
  const scope = new RouteScope(mayWait)
  const name = handlerName(route)
  return { route, layers, bindings, body, handler, controller, method, name, mayWait, scope }
}

/**
 * Compiles what the route compiles on first need (its body schema), now: the kernel calls it for
 * every route before it listens, so a served route never compiles on a request and a broken
 * schema fails the start.
 */
export function prepareRoute(compiled: CompiledRoute): void {
  compiled.body?.check()
}

/**
 * The chain of a route that waits: its middleware, onion-style, around its action. Rejects with
 * what a part threw; the cycle makes that the error reply.
 */
export async function awaitRoute(ctx: RequestContext, compiled: CompiledRoute): Promise<Reply> {
  if (compiled.layers.length === 0) return action(ctx, compiled)
  const log = ctx.log
  const start = log.now()
  const before = log.size
  try {
    return await layer(ctx, compiled, 0)
  } finally {
    // The middleware phase is the chain's time less the action's and the controller's.
    const end = log.now()
    const duration = Math.max(0, end - start - innerDuration(log, before))
    log.record('phase.completed', { name: 'middleware', start, duration }, end)
  }
}

/** Middleware `i`, given as `next()` the rest of the chain: the next middleware, or the action. */
function layer(ctx: RequestContext, compiled: CompiledRoute, i: number): Promise<Reply> {
  const { fn, checked } = compiled.layers[i]!
  const last = i + 1 === compiled.layers.length
  return fn(ctx, () => {
    // What `next()` gives a middleware is a promise, also of what fails synchronously.
    try {
      return last ? action(ctx, compiled) : layer(ctx, compiled, i + 1)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }).then(checked)
}

/**
 * The action: bound models loaded (a missing one is a 404 whatever the body), the body checked,
 * the handler called and its result made a reply. Bindings run inside the middleware, so
 * authentication answers first and an unauthenticated caller cannot learn which records exist.
 */
async function action(ctx: RequestContext, compiled: CompiledRoute): Promise<Reply> {
  for (const [param, loader] of compiled.bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) return notFoundReply(ctx)
    ctx.models[param] = loaded
  }
  if (compiled.body !== undefined) await compiled.body.check()(ctx)
  const controller = makeController(ctx, compiled)
  const start = ctx.log.now()
  try {
    return toReply(await callHandler(ctx, compiled, controller))
  } finally {
    actionDone(ctx.log, start)
  }
}

/** The route's controller made for this request (the `controller` phase); none for a function. */
export function makeController(
  ctx: RequestContext,
  compiled: CompiledRoute,
): Controller | undefined {
  if (compiled.controller === undefined) return undefined
  const log = ctx.log
  const built = log.now()
  const instance = new compiled.controller() as Controller
  const end = log.now()
  log.record('phase.completed', { name: 'controller', start: built, duration: end - built }, end)
  return instance
}

type Controller = Record<string, (...args: unknown[]) => unknown>

/** The handler: the plain function, or the method of the controller made for this request. */
export function callHandler(
  ctx: RequestContext,
  compiled: CompiledRoute,
  instance?: Controller,
): unknown {
  if (instance === undefined) return compiled.handler!(ctx)
  return compiled.route.classic
    ? instance[compiled.method]!(ctx.match?.legacy?.args ?? [], ctx)
    : instance[compiled.method]!(ctx)
}

/** Records the `action` phase, also when the handler throws or rejects. */
export function actionDone(log: EventLog, start: number): void {
  const end = log.now()
  log.record('phase.completed', { name: 'action', start, duration: end - start }, end)
}

/** The time the `action` and `controller` phases recorded since event `from` took. */
function innerDuration(log: EventLog, from: number): number {
  let inner = 0
  const events = log.all()
  for (let i = from; i < events.length; i++) {
    const e = events[i]!
    if (e.type === 'phase.completed' && (e.data.name === 'action' || e.data.name === 'controller'))
      inner += e.data.duration
  }
  return inner
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
