import type { RequestContext } from './context.js'
import { FwError, type HttpError } from './errors.js'
import { errorPage } from './http/error-page.js'
import { html, json, Reply, toReply } from './reply.js'
import type { Route } from './router/route.js'
import type { BindingLoader, ControllerClass, Handler, Middleware } from './types.js'

/** A route's compiled chain: middleware around the handler, built once per route. */
export type Pipeline = (ctx: RequestContext) => Promise<Reply>

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
      return terminalReply(ctx, 404, { error: 'not_found' }, 'There is nothing at this address.')
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
      throw new FwError(
        'FW_ERR_CONTROLLER_UNKNOWN',
        `Route '${route.path}' points to controller '${name}', which is not registered. Register it with kernel.controller('${name}', ${name.split('.').pop()}).`,
      )
    }
  } else {
    ;[cls, method] = h
  }
  if (typeof (cls.prototype as Record<string, unknown>)[method] !== 'function') {
    throw new FwError(
      'FW_ERR_CONTROLLER_ACTION',
      `Route '${route.path}' points to ${cls.name}.${method}(), which does not exist. Add the method or point the route elsewhere.`,
    )
  }
  return [cls, method]
}

/**
 * Compiles a route into its pipeline: the named middleware resolved once (an unknown name fails
 * here, at boot), composed onion-style around the handler. Records the `middleware`, `controller`
 * and `action` phases.
 */
export function compileRoute(route: Route, deps: PipelineDeps): Pipeline {
  const chain = route.middleware.map((name) => {
    const fn = deps.middleware(name)
    if (!fn) {
      throw new FwError(
        'FW_ERR_MIDDLEWARE_UNKNOWN',
        `Route '${route.path}' uses middleware '${name}', which is not registered. Register it with kernel.middleware('${name}', fn) or remove it from the route.`,
      )
    }
    return { name, fn }
  })
  const target = resolveHandler(route, deps)
  const bindings = Object.entries(route.bindings).map(([param, model]) => {
    const loader = deps.binding(model)
    if (loader === undefined) {
      throw new FwError(
        'FW_ERR_BINDING_UNKNOWN',
        `Route '${route.path}' binds '{${param}}' to model '${model}', but no loader is registered for it. Register one with kernel.binding('${model}', loader).`,
      )
    }
    return [param, loader] as const
  })
  const action = async (ctx: RequestContext): Promise<Reply> => {
    if (bindings.length > 0) {
      const missing = await bindModels(ctx, bindings)
      if (missing !== undefined) return missing
    }
    const log = ctx.log
    if (typeof target === 'function') {
      const start = log.now()
      try {
        return toReply(await target(ctx))
      } finally {
        const end = log.now()
        log.record('phase.completed', { name: 'action', start, duration: end - start }, end)
      }
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
    try {
      const result = route.classic
        ? await instance[method]!(ctx.match?.legacy?.args ?? [], ctx)
        : await instance[method]!(ctx)
      return toReply(result)
    } finally {
      const end = log.now()
      log.record('phase.completed', { name: 'action', start, duration: end - start }, end)
    }
  }
  if (chain.length === 0) return action
  let composed: Pipeline = action
  for (let i = chain.length - 1; i >= 0; i--) {
    const { name, fn } = chain[i]!
    const next = composed
    const checked = (reply: Reply): Reply => {
      if (reply instanceof Reply) return reply
      throw new FwError(
        'FW_ERR_MIDDLEWARE_NO_REPLY',
        `Middleware '${name}' did not return a reply. End it with \`return next()\` (or return a reply to answer early).`,
      )
    }
    composed = (ctx) => fn(ctx, () => next(ctx)).then(checked)
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

/**
 * The kernel's own answer when nothing else made one: JSON for clients that ask for JSON
 * (spec-notes.md "Terminal errors"), an HTML page otherwise.
 */
export function terminalReply(
  ctx: RequestContext,
  status: number,
  body: Record<string, unknown>,
  message: string,
  details?: string,
): Reply {
  return ctx.wantsJson() ? json(body, status) : html(errorPage(status, message, details), status)
}

/** How an `HttpError` answers: JSON unless the client is a browser asking for HTML. */
export function httpErrorReply(ctx: RequestContext, error: HttpError): Reply {
  const accept = ctx.headers.accept ?? ''
  const browser = accept.includes('text/html') && !ctx.wantsJson()
  const message = typeof error.body.message === 'string' ? error.body.message : error.message
  const reply = browser
    ? html(errorPage(error.status, message), error.status)
    : json(error.body, error.status)
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v)
  return reply
}
