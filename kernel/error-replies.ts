import type { RequestContext } from './context.js'
import { FwError, HttpError } from './errors.js'
import { errorPage } from './http/error-page.js'
import type { Logger } from './logger.js'
import { reportedMessage } from './redact.js'
import { html, json, type Reply } from './reply.js'
import { enterRequest } from './scope.js'

// Every reply the kernel builds on its own, as opposed to one a handler or a plugin returned:
// 404, 405, maintenance, a thrown HttpError, and the terminal 500. JSON for clients that ask for
// it and on routes that answer JSON by default (an API's), an HTML page otherwise; either way
// `Vary: Accept`, since the choice reads `Accept`.

/**
 * The kernel's own answer when nothing else made one: JSON when `ctx.wantsJson()` (the client asks
 * for JSON, or the route answers JSON by default and the client does not rank `text/html` first),
 * an HTML page otherwise.
 */
export function terminalReply(
  ctx: RequestContext,
  status: number,
  body: Record<string, unknown>,
  message: string,
  details?: string,
): Reply {
  const reply = ctx.wantsJson()
    ? json(body, status)
    : html(errorPage(status, message, details), status)
  return reply.vary('Accept')
}

/** 404: nothing at this address (also a bound model that does not exist). */
export function notFoundReply(ctx: RequestContext): Reply {
  return terminalReply(ctx, 404, { error: 'not_found' }, 'There is nothing at this address.')
}

/** 405 with `Allow`: the path answers other methods. */
export function methodNotAllowedReply(ctx: RequestContext, allowed: readonly string[]): Reply {
  return terminalReply(
    ctx,
    405,
    { error: 'method_not_allowed', allowed },
    `This address does not answer ${ctx.method}. It answers ${allowed.join(', ')}.`,
  ).header('allow', allowed.join(', '))
}

/** 503 with `Retry-After` while `var/MAINTENANCE` exists. */
export function maintenanceReply(ctx: RequestContext, retryAfter: number): Reply {
  return terminalReply(
    ctx,
    503,
    { error: 'maintenance', retry_after: retryAfter },
    `The application is down for maintenance. Try again in ${retryAfter} seconds.`,
  ).header('retry-after', String(retryAfter))
}

/** How an `HttpError` answers: JSON unless the client ranks `text/html` first. */
export function httpErrorReply(ctx: RequestContext, error: HttpError): Reply {
  const accept = ctx.headers.accept ?? ''
  const browser = accept.includes('text/html') && !ctx.wantsJson()
  const message = typeof error.body.message === 'string' ? error.body.message : error.message
  const reply = browser
    ? html(errorPage(error.status, message), error.status)
    : json(error.body, error.status)
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v)
  return reply.vary('Accept')
}

/** What turning a thrown value into a reply needs. */
export interface ErrorReplyDeps {
  /** Read on each failure: the logging plugin replaces the kernel's logger during setup. */
  logger(): Logger
  /** Retry-after seconds while in maintenance, else undefined. */
  maintenance(): number | undefined
  readonly development: boolean
}

/**
 * The reply for something thrown while answering: `custom`, what a plugin's `error` tap answered
 * (the request cycle runs the hook), else an `HttpError`'s own, else a terminal 500 (503 in
 * maintenance) that shows details only in development. Records `exception.raised` with the status
 * the client gets.
 */
export function errorReplied(
  deps: ErrorReplyDeps,
  ctx: RequestContext,
  error: unknown,
  custom: Reply | undefined,
): Reply {
  const reply = custom ?? defaultErrorReply(deps, ctx, error)
  ctx.log.record('exception.raised', {
    name: error instanceof Error ? error.name : typeof error,
    message: error instanceof Error ? reportedMessage(error) : String(error),
    code: (error as { code?: unknown } | null)?.code as string | undefined,
    status: reply.status,
  })
  return reply
}

/**
 * Logs a kernel error line of `ctx`'s request (its path added): the line belongs to the request
 * whatever was awaited before it (an async tap), with the request scope on or off
 * (test/kernel/scope.test.ts).
 */
export function logRequestError(
  logger: Logger,
  ctx: RequestContext,
  message: string,
  fields: Record<string, unknown>,
): void {
  const previous = enterRequest(ctx)
  try {
    logger.error(message, { ...fields, path: ctx.path })
  } finally {
    enterRequest(previous)
  }
}

function defaultErrorReply(deps: ErrorReplyDeps, ctx: RequestContext, error: unknown): Reply {
  if (error instanceof HttpError) return httpErrorReply(ctx, error)
  logRequestError(deps.logger(), ctx, 'request failed', { error, method: ctx.method })
  const retryAfter = deps.maintenance()
  if (retryAfter !== undefined) return maintenanceReply(ctx, retryAfter)
  const status = error instanceof FwError && error.status >= 500 ? error.status : 500
  const err = error instanceof Error ? error : new Error(String(error))
  if (ctx.wantsJson()) {
    return json(
      deps.development
        ? {
            error: 'unavailable',
            message: err.message,
            exception: err.name,
            trace: err.stack?.split('\n'),
          }
        : { error: 'unavailable' },
      status,
    ).vary('Accept')
  }
  return terminalReply(
    ctx,
    status,
    { error: 'unavailable' },
    deps.development
      ? err.message
      : 'The server could not answer this request. It has been logged.',
    deps.development ? err.stack : undefined,
  )
}
