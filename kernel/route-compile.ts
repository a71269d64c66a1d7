import { compileErrors } from './error-codes.js'
import type { RequestContext } from './context.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

// A route compiled at boot (kernel/compiled-routes.ts calls it): what it refers to by name
// resolved, how its handler is called and which of its chain's two variants it runs decided once.
// A route with nothing that waits (no middleware, bindings or body schema, a handler that is not
// `async`) runs `callAction`; any other runs `action` (both in kernel/route-chain.ts). Nothing here
// runs on a request.

/** A route compiled at boot: its parts resolved, its chain's variant chosen. */
export interface CompiledRoute {
  readonly route: Route
  /** The handler as `route.matched` and `fw route:list` show it. */
  readonly name: string
  /**
   * True when some part of the route waits (middleware, bindings, a body schema, an `async`
   * handler): it runs `action`, else `callAction`.
   */
  readonly waits: boolean
  /** Middleware, outermost first. */
  readonly layers: readonly Layer[]
  /** Placeholder name and the loader of its model, for implicit binding. */
  readonly bindings: readonly (readonly [string, BindingLoader])[]
  /** The body check, compiled on first need (ajv costs a command that only lists routes). */
  readonly check: (() => BodyCheck) | undefined
  /** The controller made for each request, if the handler is a controller's method. */
  readonly controller: ControllerClass | undefined
  /** Calls the handler: the plain function, the controller's method, or a classic action. */
  readonly call: (ctx: RequestContext, controller: object | undefined) => unknown
  /** Whether the chain runs in the request scope, when that is on (kernel/scope.ts). */
  readonly scope: RouteScope
}

type Controller = Record<string, (...args: unknown[]) => unknown>

/** One middleware of a route and its name (for `FW_ERR_MIDDLEWARE_NO_REPLY`). */
export interface Layer {
  readonly fn: Middleware
  readonly name: string
}

/** What compiling a route needs from the kernel: what routes refer to by name. */
export interface ChainDeps {
  middleware(name: string): Middleware | undefined
  controller(name: string): ControllerClass | undefined
  binding(model: string): BindingLoader | undefined
}

/**
 * Compiles a route: its named middleware and bindings resolved (an unknown name fails here, at
 * boot), its handler resolved to a function or a controller's method, and its chain's variant
 * chosen: `callAction` when nothing of the route waits, else `action`.
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
  const call = handler ?? callerOf(method, route.classic)
  const [name, scope] = [handlerName(route), new RouteScope(waits)]
  return { route, name, waits, layers, bindings, check, controller, call, scope }
}

/** A controller's method called as a route's handler, or as a classic action (its path's args). */
function callerOf(method: string, classic: boolean): CompiledRoute['call'] {
  return classic
    ? (ctx, controller) => (controller as Controller)[method]!(ctx.match?.legacy?.args ?? [], ctx)
    : (ctx, controller) => (controller as Controller)[method]!(ctx)
}

/**
 * Compiles what the route compiles on first need (its body schema), now: the kernel calls it for
 * every route before it listens, so a served route never compiles on a request and a broken
 * schema fails the start.
 */
export function prepareRoute(compiled: CompiledRoute): void {
  compiled.check?.()
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

/**
 * Whether a route's chain runs in the request scope (when a plugin turned it on). A route that
 * waits by construction (middleware, bindings, a body schema, an `async` handler) always does. Any
 * other does until it has answered once without its handler returning a promise, and not from then
 * on (its synchronous code still finds the request); should its handler return a promise after
 * all, the route is scoped again for good (test/kernel/scope.test.ts).
 */
export class RouteScope {
  /** True while the route's chain runs in the request scope. */
  needed = true
  readonly #mayWait: boolean
  #waited = false

  constructor(mayWait: boolean) {
    this.#mayWait = mayWait
  }

  /** The route answered in the scope: a synchronous one needs it no more, unless it waited. */
  answered(): void {
    if (!this.#mayWait && !this.#waited) this.needed = false
  }

  /** The handler of a route compiled as synchronous returned a promise: scoped for good. */
  waited(): void {
    this.#waited = true
    this.needed = true
  }
}
