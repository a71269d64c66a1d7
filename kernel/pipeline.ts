import type { RequestContext } from './context.js'
import type { EventLog } from './events.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import { isThenable, type MaybePromise } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

/** A route's compiled chain: middleware around the handler, built once per route. */
export type Pipeline = (ctx: RequestContext) => MaybePromise<Reply>

/** A compiled route: its pipeline, and whether it can wait by construction. */
export interface CompiledRoute {
  readonly pipeline: Pipeline
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
  readonly prepare: () => void
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

/** What `next()` gives middleware: always a promise, also of a synchronous handler's reply. */
function settled(fn: () => MaybePromise<Reply>): Promise<Reply> {
  try {
    return Promise.resolve(fn())
  } catch (error) {
    return Promise.reject(error as Error)
  }
}

/**
 * Compiles a route into its pipeline: the named middleware resolved once (an unknown name fails
 * here, at boot), composed onion-style around the handler. Records the `middleware`, `controller`
 * and `action` phases.
 */
export function compileRoute(route: Route, deps: PipelineDeps): CompiledRoute {
  const target = resolveHandler(route, deps)
  // The body schema compiles on first need (ajv and its code generation cost a command that only
  // lists routes ~0.2 s): before the kernel listens, or on the first request when it does not.
  const schema = route.schema?.body
  let bodyCheck: BodyCheck | undefined
  const check =
    schema === undefined
      ? undefined
      : (): BodyCheck => (bodyCheck ??= compileBodyCheck(route, schema))
  const pipeline = compilePipeline(route, deps, target, check)
  const mayWait =
    route.middleware.length > 0 ||
    Object.keys(route.bindings).length > 0 ||
    route.schema?.body !== undefined ||
    isAsyncFunction(typeof target === 'function' ? target : target[0].prototype[target[1]])
  return { pipeline, name: handlerName(route), mayWait, prepare: () => void check?.() }
}

function compilePipeline(
  route: Route,
  deps: PipelineDeps,
  target: Handler | readonly [ControllerClass, string],
  check: (() => BodyCheck) | undefined,
): Pipeline {
  const chain = route.middleware.map((name) => {
    const fn = deps.middleware(name)
    if (!fn) {
      throw compileErrors.error('FW_ERR_MIDDLEWARE_UNKNOWN', { route: route.path, name })
    }
    return { name, fn }
  })
  const bindings = Object.entries(route.bindings).map(([param, model]) => {
    const loader = deps.binding(model)
    if (loader === undefined) {
      throw compileErrors.error('FW_ERR_BINDING_UNKNOWN', { route: route.path, param, model })
    }
    return [param, loader] as const
  })
  /** Records the `action` phase, also when the handler throws or rejects. */
  const actionDone = (log: EventLog, start: number): void => {
    const end = log.now()
    log.record('phase.completed', { name: 'action', start, duration: end - start }, end)
  }
  /** The handler's result as a reply: synchronous while the handler is. */
  const finish = (log: EventLog, start: number, result: unknown): MaybePromise<Reply> => {
    if (!isThenable(result)) {
      actionDone(log, start)
      return toReply(result)
    }
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
  const call = (ctx: RequestContext): MaybePromise<Reply> => {
    const log = ctx.log
    if (typeof target === 'function') {
      const start = log.now()
      let result: unknown
      try {
        result = target(ctx)
      } catch (error) {
        actionDone(log, start)
        throw error
      }
      return finish(log, start, result)
    }
    const [Cls, method] = target
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
      result = route.classic
        ? instance[method]!(ctx.match?.legacy?.args ?? [], ctx)
        : instance[method]!(ctx)
    } catch (error) {
      actionDone(log, start)
      throw error
    }
    return finish(log, start, result)
  }
  // Bindings first (a missing record is a 404 whatever the body), then the body, then the handler.
  const validated: Pipeline =
    check === undefined ? call : async (ctx) => (await check()(ctx), call(ctx))
  const action: Pipeline =
    bindings.length === 0
      ? validated
      : async (ctx) => (await bindModels(ctx, bindings)) ?? validated(ctx)
  if (chain.length === 0) return action
  let composed: Pipeline = action
  for (let i = chain.length - 1; i >= 0; i--) {
    const { name, fn } = chain[i]!
    const next = composed
    const checked = (reply: Reply): Reply => {
      if (reply instanceof Reply) return reply
      throw compileErrors.error('FW_ERR_MIDDLEWARE_NO_REPLY', { name })
    }
    composed = (ctx) => fn(ctx, () => settled(() => next(ctx))).then(checked)
  }
  return async (ctx) => {
    const log = ctx.log
    const start = log.now()
    const before = log.size
    try {
      return await composed(ctx)
    } finally {
      // Middleware time is the chain's time less what the controller and the action took.
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
}
