import type { RequestContext } from './context.js'
import { FwError, HttpError } from './errors.js'
import { callTap, runBailHook, runWaterfallHook } from './hooks.js'
import type { Kernel } from './kernel.js'
import { httpErrorReply, terminalReply } from './pipeline.js'
import { json, type Reply } from './reply.js'
import type { RouteMatch } from './router/route.js'

/**
 * One request through the pipeline: maintenance → `request` → `route` → bindings → middleware and
 * handler → `render` → `annotate`. Every failure becomes a reply; this never rejects.
 */
export async function handle(kernel: Kernel, ctx: RequestContext): Promise<Reply> {
  const log = ctx.log
  log.record('request.received', { method: ctx.method, path: ctx.path }, 0)
  let reply: Reply
  try {
    reply = await answer(kernel, ctx)
  } catch (error) {
    reply = await errorReply(kernel, ctx, error)
  }
  const hooks = kernel.hooks
  if (hooks.render.isUsed()) {
    try {
      // tapable's own call only when someone intercepts the hook (interceptors see every call).
      reply =
        hooks.render.interceptors.length === 0
          ? await runWaterfallHook(hooks.render.taps, reply, ctx)
          : await hooks.render.promise(reply, ctx)
    } catch (error) {
      reply = await errorReply(kernel, ctx, error)
    }
  }
  if (reply.body.kind === 'view') {
    reply = await errorReply(
      kernel,
      ctx,
      new FwError(
        'FW_ERR_VIEW_NO_ENGINE',
        `A handler returned the view '${reply.body.template}', but no view engine is registered. Register a views plugin, or return html(...).`,
      ),
    )
  }
  log.record('response.prepared', { status: reply.status })
  if (hooks.annotate.isUsed()) {
    // Each annotate tap is isolated: one that throws is reported and the others still run.
    for (const tap of hooks.annotate.taps) {
      try {
        if (tap.type === 'promise')
          await (tap.fn as (r: Reply, c: RequestContext) => Promise<void>)(reply, ctx)
        else await callTap(tap, [reply, ctx])
      } catch (error) {
        kernel.logger.error(`annotate tap '${tap.name}' failed`, { error, path: ctx.path })
      }
    }
  }
  return reply
}

async function answer(kernel: Kernel, ctx: RequestContext): Promise<Reply> {
  const retryAfter = kernel.maintenance(ctx.log.origin)
  if (retryAfter !== undefined) return maintenanceReply(ctx, retryAfter)
  const hooks = kernel.hooks
  if (hooks.request.isUsed()) {
    const early =
      hooks.request.interceptors.length === 0
        ? await runBailHook<RequestContext, Reply>(hooks.request.taps, ctx)
        : await hooks.request.promise(ctx)
    if (early) return early
  }
  const log = ctx.log
  const routingStart = log.now()
  // With only the kernel's own route taps, ask the router directly: same answer, no promise chain.
  let match: RouteMatch | undefined = kernel.builtinRoutingOnly()
    ? kernel.routeDirect(ctx)
    : await hooks.route.promise(ctx)
  const routingEnd = log.now()
  log.record(
    'phase.completed',
    { name: 'routing', start: routingStart, duration: routingEnd - routingStart },
    routingEnd,
  )
  if (!match) {
    const allowed = kernel.router.allowedMethodsFor(ctx.method, ctx.routingPath, ctx.querystring)
    log.record('route.missed', { method: ctx.method, path: ctx.path, allowed })
    if (allowed.length > 0) {
      return terminalReply(
        ctx,
        405,
        { error: 'method_not_allowed', allowed },
        `This address does not answer ${ctx.method}. It answers ${allowed.join(', ')}.`,
      ).header('allow', allowed.join(', '))
    }
    const fallback = kernel.router.fallbackRoute
    if (!fallback) {
      return terminalReply(ctx, 404, { error: 'not_found' }, 'There is nothing at this address.')
    }
    match = { route: fallback, params: {} }
  }
  ctx.match = match
  ctx.params = match.params
  const route = match.route
  log.record(
    'route.matched',
    {
      method: ctx.method,
      path: route.path,
      name: route.name,
      handler: kernel.handlerNameOf(route),
      params: match.params,
    },
    routingEnd,
  )
  return kernel.pipelineFor(route)(ctx)
}

function maintenanceReply(ctx: RequestContext, retryAfter: number): Reply {
  return terminalReply(
    ctx,
    503,
    { error: 'maintenance', retry_after: retryAfter },
    `The application is down for maintenance. Try again in ${retryAfter} seconds.`,
  ).header('retry-after', String(retryAfter))
}

/**
 * The reply for something thrown: a plugin's (`error` hook), else an `HttpError`'s own, else a
 * terminal 500 (503 in maintenance) that shows details only in development.
 */
async function errorReply(kernel: Kernel, ctx: RequestContext, error: unknown): Promise<Reply> {
  const reply = await buildErrorReply(kernel, ctx, error)
  ctx.log.record('exception.raised', {
    name: error instanceof Error ? error.name : typeof error,
    message: error instanceof Error ? error.message : String(error),
    code: (error as { code?: unknown } | null)?.code as string | undefined,
    status: reply.status,
  })
  return reply
}

async function buildErrorReply(
  kernel: Kernel,
  ctx: RequestContext,
  error: unknown,
): Promise<Reply> {
  if (kernel.hooks.error.isUsed()) {
    try {
      const custom = await kernel.hooks.error.promise(error, ctx)
      if (custom) return custom
    } catch (hookError) {
      kernel.logger.error(`error hook failed`, { error: hookError, path: ctx.path })
    }
  }
  if (error instanceof HttpError) return httpErrorReply(ctx, error)
  kernel.logger.error('request failed', { error, method: ctx.method, path: ctx.path })
  const retryAfter = kernel.maintenance()
  if (retryAfter !== undefined) return maintenanceReply(ctx, retryAfter)
  const status = error instanceof FwError && error.status >= 500 ? error.status : 500
  const dev = kernel.isDevelopment()
  const err = error instanceof Error ? error : new Error(String(error))
  if (ctx.wantsJson()) {
    return json(
      dev
        ? {
            error: 'unavailable',
            message: err.message,
            exception: err.name,
            trace: err.stack?.split('\n'),
          }
        : { error: 'unavailable' },
      status,
    )
  }
  return terminalReply(
    ctx,
    status,
    { error: 'unavailable' },
    dev ? err.message : 'The server could not answer this request. It has been logged.',
    dev ? err.stack : undefined,
  )
}
