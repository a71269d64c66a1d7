import type { RequestContext } from './context.js'
import { notFoundReply } from './error-replies.js'
import { compileErrors } from './error-codes.js'
import type { EventLog } from './events.js'
import { isThenable, type MaybePromise } from './hook-runner.js'
import { Reply, toReply } from './reply.js'
import { RouteScope } from './scope.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware } from './types.js'
import { compileBodyCheck, type BodyCheck } from './validation.js'

/**
 * A route compiled at boot into the one function that answers it once it is matched: its
 * middleware, bindings, body check and handler, then its reply's way back (`render`, `annotate`).
 */
export interface CompiledRoute {
  /** The route's chain, from the matched request to its reply, rendered and annotated. */
  readonly run: (ctx: RequestContext) => MaybePromise<Reply>
  /** The handler as `route.matched` and `fw route:list` show it. */
  readonly name: string
  /**
   * True when the route waits by construction (middleware, bindings, a body schema, an `async`
   * handler): its chain is the `async` one, and it runs in the request scope when that is on.
   */
  readonly mayWait: boolean
  /** Whether the chain runs in the request scope, when that is on (kernel/scope.ts). */
  readonly scope: RouteScope
  /**
   * Compiles what the route compiles on first need (its body schema), now: the kernel calls it for
   * every route before it listens, so a served route never compiles on a request and a broken
   * schema fails the start.
   */
  prepare(): void
}

/** What compiling a route needs from the kernel. */
export interface ChainDeps {
  middleware(name: string): Middleware | undefined
  controller(name: string): ControllerClass | undefined
  binding(model: string): BindingLoader | undefined
  /** The reply's way back, shared by every route (kernel/request-cycle.ts). */
  readonly ends: ReplyEnds
}

/** What every chain ends in: the request cycle's error reply, `render` and `annotate`. */
export interface ReplyEnds {
  /** The error reply for what a route threw or rejected with. */
  fail(ctx: RequestContext, error: unknown): MaybePromise<Reply>
  /** `render` and `annotate` on a reply now or later, synchronously while everything is. */
  finish(ctx: RequestContext, answered: MaybePromise<Reply>): MaybePromise<Reply>
}

/** A route's parts, resolved once: what its chain calls, in order. */
interface RouteParts {
  readonly route: Route
  readonly layers: readonly Layer[]
  readonly bindings: readonly (readonly [string, BindingLoader])[]
  readonly body: LazyBodyCheck | undefined
  /** A plain function handler; undefined for a controller's method. */
  readonly handler: Handler | undefined
  readonly controller: ControllerClass | undefined
  readonly method: string
}

/** One middleware of a route, and the check that it answered a `Reply`. */
interface Layer {
  readonly fn: Middleware
  readonly checked: (reply: Reply) => Reply
}

/**
 * Compiles a route: its named middleware and bindings resolved (an unknown name fails here, at
 * boot), its handler resolved to a function or a controller's method, and its chain chosen: the
 * synchronous one when nothing of the route waits, else the `async` one.
 */
export function compileRoute(route: Route, deps: ChainDeps): CompiledRoute {
  const parts = resolveParts(route, deps)
  const target = parts.handler ?? parts.controller!.prototype[parts.method]
  const mayWait =
    parts.layers.length > 0 ||
    parts.bindings.length > 0 ||
    parts.body !== undefined ||
    isAsyncFunction(target)
  const scope = new RouteScope(mayWait)
  const run = mayWait ? awaitingChain(parts, deps.ends) : synchronousChain(parts, deps.ends, scope)
  const prepare = (): void => void parts.body?.check()
  return { run, name: handlerName(route), mayWait, scope, prepare }
}

/**
 * The chain of a route with nothing that waits: the handler, its reply rendered and annotated, all
 * in the caller's turn. A handler that returns a promise anyway is followed to its reply.
 */
function synchronousChain(
  parts: RouteParts,
  ends: ReplyEnds,
  scope: RouteScope,
): CompiledRoute['run'] {
  return function synchronousRoute(ctx) {
    const log = ctx.log
    const controller = makeController(ctx, parts)
    const start = log.now()
    let result: unknown
    try {
      result = callHandler(ctx, parts, controller)
    } catch (error) {
      actionDone(log, start)
      return ends.finish(ctx, ends.fail(ctx, error))
    }
    if (isThenable(result)) {
      scope.waited()
      return ends.finish(ctx, settleAction(ctx, start, result, ends))
    }
    actionDone(log, start)
    return ends.finish(ctx, toReply(result))
  }
}

/** What a handler's promise settles to, as a reply; its rejection, the error reply. */
async function settleAction(
  ctx: RequestContext,
  start: number,
  result: Promise<unknown>,
  ends: ReplyEnds,
): Promise<Reply> {
  let value: unknown
  try {
    value = await result
  } catch (error) {
    actionDone(ctx.log, start)
    return ends.fail(ctx, error)
  }
  actionDone(ctx.log, start)
  return toReply(value)
}

/** The chain of a route that waits: its middleware around its action, then the way back. */
function awaitingChain(parts: RouteParts, ends: ReplyEnds): CompiledRoute['run'] {
  return async function awaitingRoute(ctx) {
    let reply: Reply
    try {
      reply =
        parts.layers.length === 0 ? await action(ctx, parts) : await throughMiddleware(ctx, parts)
    } catch (error) {
      reply = await ends.fail(ctx, error)
    }
    return ends.finish(ctx, reply)
  }
}

/** The middleware, onion-style: each given as `next()` the rest of them, then the action. */
async function throughMiddleware(ctx: RequestContext, parts: RouteParts): Promise<Reply> {
  const log = ctx.log
  const start = log.now()
  const before = log.size
  try {
    return await layer(ctx, parts, 0)
  } finally {
    const end = log.now()
    const inner = innerDuration(log, before)
    const duration = Math.max(0, end - start - inner)
    log.record('phase.completed', { name: 'middleware', start, duration }, end)
  }
}

/** Middleware `i`, given as `next()` the rest of the chain: the next middleware, or the action. */
function layer(ctx: RequestContext, parts: RouteParts, i: number): Promise<Reply> {
  const { fn, checked } = parts.layers[i]!
  const last = i + 1 === parts.layers.length
  return fn(ctx, () => {
    // What `next()` gives a middleware is a promise, also of what fails synchronously.
    try {
      return last ? action(ctx, parts) : layer(ctx, parts, i + 1)
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
async function action(ctx: RequestContext, parts: RouteParts): Promise<Reply> {
  for (const [param, loader] of parts.bindings) {
    const value = ctx.params[param]
    const loaded = value === undefined ? undefined : await loader(value, ctx)
    if (loaded === undefined || loaded === null) return notFoundReply(ctx)
    ctx.models[param] = loaded
  }
  if (parts.body !== undefined) await parts.body.check()(ctx)
  const controller = makeController(ctx, parts)
  const start = ctx.log.now()
  try {
    return toReply(await callHandler(ctx, parts, controller))
  } finally {
    actionDone(ctx.log, start)
  }
}

/** The route's controller made for this request (the `controller` phase); none for a function. */
function makeController(ctx: RequestContext, parts: RouteParts): Controller | undefined {
  if (parts.controller === undefined) return undefined
  const log = ctx.log
  const built = log.now()
  const instance = new parts.controller() as Controller
  const end = log.now()
  log.record('phase.completed', { name: 'controller', start: built, duration: end - built }, end)
  return instance
}

type Controller = Record<string, (...args: unknown[]) => unknown>

/** The handler: the plain function, or the method of the controller made for this request. */
function callHandler(ctx: RequestContext, parts: RouteParts, instance?: Controller): unknown {
  if (instance === undefined) return parts.handler!(ctx)
  return parts.route.classic
    ? instance[parts.method]!(ctx.match?.legacy?.args ?? [], ctx)
    : instance[parts.method]!(ctx)
}

/** Records the `action` phase, also when the handler throws or rejects. */
function actionDone(log: EventLog, start: number): void {
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

/** A route's body check, compiled on first need (ajv costs a command that only lists routes). */
interface LazyBodyCheck {
  check(): BodyCheck
}

/** What a route refers to by name, resolved: an unknown one fails here, at boot. */
function resolveParts(route: Route, deps: ChainDeps): RouteParts {
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
    if (loader === undefined) {
      throw compileErrors.error('FW_ERR_BINDING_UNKNOWN', { route: route.path, param, model })
    }
    return [param, loader] as const
  })
  const schema = route.schema?.body
  let compiled: BodyCheck | undefined
  const body =
    schema === undefined
      ? undefined
      : { check: () => (compiled ??= compileBodyCheck(route, schema)) }
  return { route, layers, bindings, body, handler, controller, method }
}

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
