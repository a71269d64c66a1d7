import type { RequestContext } from './context.js'
import type { EventLog } from './events.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { isThenable, type MaybePromise } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

/**
 * A route compiled: what the request cycle runs for it (`run(ctx)`), and what is known of it before
 * a request.
 */
export interface CompiledRoute {
  /** The route's pipeline: its middleware around its bindings, body check and handler. */
  run(ctx: RequestContext): MaybePromise<Reply>
  /** The handler as `route.matched` and `fw route:list` show it. */
  readonly name: string
  /**
   * True when the route has middleware or bindings or an `async` handler: it waits on something,
   * so it runs in the request scope (see `RouteScopes`).
   */
  readonly mayWait: boolean
  /**
   * Compiles what the route compiles on first need (its body schema), now: the kernel calls it for
   * every route before it listens, so a served route never compiles on a request and a broken
   * schema fails the start.
   */
  prepare(): void
}

const isAsyncFunction = (fn: unknown): boolean =>
  typeof fn === 'function' && /^Async(Generator)?Function$/.test(fn.constructor.name)

/** What compiling a route needs from the kernel. */
export interface PipelineDeps {
  middleware(name: string): Middleware | undefined
  controller(name: string): ControllerClass | undefined
  binding(model: string): BindingLoader | undefined
}

/**
 * Loads the models a route's placeholders are bound to into `ctx.models`. Runs inside the
 * middleware, right before the handler (like Laravel's SubstituteBindings), so authentication
 * answers first and an unauthenticated caller cannot learn which records exist. Returns the 404
 * reply when one is missing: "nothing at this address", the same as an unknown path.
 */
async function bindModels(
  ctx: RequestContext,
  bindings: readonly (readonly [string, BindingLoader])[],
): Promise<Reply | undefined> {
  for (const [param, loader] of bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) {
      return notFoundReply(ctx)
    }
    ctx.models[param] = loaded
  }
  return undefined
}

/** The display name of a route's handler, as `fw route:list` and `route.matched` show it. */
export function handlerName(route: Route): string {
  const h = route.handler
  if (typeof h === 'string') return h
  if (typeof h === 'function') return h.name || 'closure'
  return `${h[0].name}@${h[1]}`
}

/** Resolves a handler reference to a class and method, or a plain function. */
function resolveHandler(
  route: Route,
  deps: PipelineDeps,
): Handler | readonly [ControllerClass, string] {
  const h = route.handler
  if (typeof h === 'function') return h
  let cls: ControllerClass | undefined
  let method: string
  if (typeof h === 'string') {
    const at = h.lastIndexOf('@')
    const name = at === -1 ? h : h.slice(0, at)
    method = at === -1 ? 'handle' : h.slice(at + 1)
    cls = deps.controller(name)
    if (!cls) {
      throw compileErrors.error('FW_ERR_CONTROLLER_UNKNOWN', { route: route.path, name })
    }
  } else {
    ;[cls, method] = h
  }
  if (typeof (cls.prototype as Record<string, unknown>)[method] !== 'function') {
    throw compileErrors.error('FW_ERR_CONTROLLER_ACTION', {
      route: route.path,
      action: `${cls.name}.${method}`,
    })
  }
  return [cls, method]
}

/**
 * Compiles a route: its named middleware and bindings resolved once (an unknown name fails here, at
 * boot), its handler resolved to a function or a controller's method.
 */
export function compileRoute(route: Route, deps: PipelineDeps): CompiledRoute {
  return new RoutePipeline(route, deps)
}

/** One middleware of a route: its function, and the check of what it answered. */
interface Layer {
  readonly fn: Middleware
  readonly checked: (reply: Reply) => Reply
}

/**
 * A route's pipeline, in the order a request goes through it: `run` → the middleware, onion-style
 * (`#throughMiddleware`, `#layer`) → `#action`: the bound models loaded (`#bindThenAct`), the body
 * checked (`#checkThenCall`), the handler called (`#call`) and its result made a reply. Records the
 * `middleware`, `controller` and `action` phases. Synchronous while the handler is, for a route
 * with no middleware, bindings or body schema.
 */
class RoutePipeline implements CompiledRoute {
  readonly name: string
  readonly mayWait: boolean
  readonly #route: Route
  /** A plain function handler, or undefined for a controller's method. */
  readonly #handler: Handler | undefined
  readonly #controller: ControllerClass | undefined
  readonly #method: string
  readonly #layers: readonly Layer[]
  readonly #bindings: readonly (readonly [string, BindingLoader])[]
  readonly #schema: NonNullable<Route['schema']>['body']
  // The body schema compiles on first need (ajv and its code generation cost a command that only
  // lists routes ~0.2 s): before the kernel listens, or on the first request when it does not.
  #bodyCheck: BodyCheck | undefined = undefined

  constructor(route: Route, deps: PipelineDeps) {
    const target = resolveHandler(route, deps)
    this.#route = route
    this.#handler = typeof target === 'function' ? target : undefined
    this.#controller = typeof target === 'function' ? undefined : target[0]
    this.#method = typeof target === 'function' ? '' : target[1]
    this.#layers = route.middleware.map((name) => {
      const fn = deps.middleware(name)
      if (!fn) {
        throw compileErrors.error('FW_ERR_MIDDLEWARE_UNKNOWN', { route: route.path, name })
      }
      return { fn, checked: checkedReply(name) }
    })
    this.#bindings = Object.entries(route.bindings).map(([param, model]) => {
      const loader = deps.binding(model)
      if (loader === undefined) {
        throw compileErrors.error('FW_ERR_BINDING_UNKNOWN', { route: route.path, param, model })
      }
      return [param, loader] as const
    })
    this.#schema = route.schema?.body
    this.name = handlerName(route)
    this.mayWait =
      this.#layers.length > 0 ||
      this.#bindings.length > 0 ||
      this.#schema !== undefined ||
      isAsyncFunction(typeof target === 'function' ? target : target[0].prototype[target[1]])
  }

  prepare(): void {
    if (this.#schema !== undefined) this.#checkBody()
  }

  run(ctx: RequestContext): MaybePromise<Reply> {
    return this.#layers.length === 0 ? this.#action(ctx) : this.#throughMiddleware(ctx)
  }

  /** The middleware chain, timed: its time less what the controller and the action took. */
  async #throughMiddleware(ctx: RequestContext): Promise<Reply> {
    const log = ctx.log
    const start = log.now()
    const before = log.size
    try {
      return await this.#layer(ctx, 0)
    } finally {
      let inner = 0
      const events = log.all()
      for (let i = before; i < events.length; i++) {
        const e = events[i]!
        if (
          e.type === 'phase.completed' &&
          (e.data.name === 'action' || e.data.name === 'controller')
        )
          inner += e.data.duration
      }
      const end = log.now()
      log.record(
        'phase.completed',
        { name: 'middleware', start, duration: Math.max(0, end - start - inner) },
        end,
      )
    }
  }

  /** Middleware `i`, given as `next()` the rest of the chain (then the action). */
  #layer(ctx: RequestContext, i: number): Promise<Reply> {
    const layer = this.#layers[i]!
    return layer.fn(ctx, () => this.#next(ctx, i + 1)).then(layer.checked)
  }

  /** What `next()` gives middleware: always a promise, also of a synchronous handler's reply. */
  #next(ctx: RequestContext, i: number): Promise<Reply> {
    try {
      return Promise.resolve(i < this.#layers.length ? this.#layer(ctx, i) : this.#action(ctx))
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  /** Bindings first (a missing record is a 404 whatever the body), then the body, the handler. */
  #action(ctx: RequestContext): MaybePromise<Reply> {
    return this.#bindings.length === 0 ? this.#validated(ctx) : this.#bindThenAct(ctx)
  }

  async #bindThenAct(ctx: RequestContext): Promise<Reply> {
    return (await bindModels(ctx, this.#bindings)) ?? this.#validated(ctx)
  }

  #validated(ctx: RequestContext): MaybePromise<Reply> {
    return this.#schema === undefined ? this.#call(ctx) : this.#checkThenCall(ctx)
  }

  async #checkThenCall(ctx: RequestContext): Promise<Reply> {
    await this.#checkBody()(ctx)
    return this.#call(ctx)
  }

  #checkBody(): BodyCheck {
    return (this.#bodyCheck ??= compileBodyCheck(this.#route, this.#schema!))
  }

  /** The handler (a controller's method on a new instance), its result as a reply. */
  #call(ctx: RequestContext): MaybePromise<Reply> {
    const log = ctx.log
    const handler = this.#handler
    if (handler !== undefined) {
      const start = log.now()
      let result: unknown
      try {
        result = handler(ctx)
      } catch (error) {
        actionDone(log, start)
        throw error
      }
      return actionResult(log, start, result)
    }
    const Cls = this.#controller!
    const built = log.now()
    const instance = new Cls() as Record<string, (...args: unknown[]) => unknown>
    const start = log.now()
    log.record(
      'phase.completed',
      { name: 'controller', start: built, duration: start - built },
      start,
    )
    let result: unknown
    try {
      result = this.#route.classic
        ? instance[this.#method]!(ctx.match?.legacy?.args ?? [], ctx)
        : instance[this.#method]!(ctx)
    } catch (error) {
      actionDone(log, start)
      throw error
    }
    return actionResult(log, start, result)
  }
}

/** Records the `action` phase, also when the handler throws or rejects. */
function actionDone(log: EventLog, start: number): void {
  const end = log.now()
  log.record('phase.completed', { name: 'action', start, duration: end - start }, end)
}

/** The handler's result as a reply: synchronous while the handler is. */
function actionResult(log: EventLog, start: number, result: unknown): MaybePromise<Reply> {
  if (isThenable(result)) return actionSettled(log, start, result)
  actionDone(log, start)
  return toReply(result)
}

function actionSettled(log: EventLog, start: number, result: Promise<unknown>): Promise<Reply> {
  return result.then(
    (value) => {
      actionDone(log, start)
      return toReply(value)
    },
    (error: unknown) => {
      actionDone(log, start)
      throw error
    },
  )
}

/** Checks that middleware `name` answered a `Reply`. */
function checkedReply(name: string): (reply: Reply) => Reply {
  return (reply) => {
    if (reply instanceof Reply) return reply
    throw compileErrors.error('FW_ERR_MIDDLEWARE_NO_REPLY', { name })
  }
}
