import type { SqlEntityManager } from '@mikro-orm/knex'
import { HttpError, json, type Reply, type RequestContext } from 'fw'
import type { ListDebug } from './compile.js'
import { fetchList, type ListParams } from './engine.js'
import { ListQueryError } from './errors.js'
import type { ListSource } from './source.js'

/** The error envelope of spec.md "List envelope". */
export interface ListErrorEnvelope {
  error: string
  data: []
  pagination: null
  fields: string[]
  debug: ListDebug
}

/** The error envelope for a failed list: `debug` holds SQL fragments with `?`, never a value. */
export function errorEnvelope(error: ListQueryError): ListErrorEnvelope {
  return {
    error: error.message,
    data: [],
    pagination: null,
    fields: [...error.fields],
    debug: { ...error.debug },
  }
}

/** A browser (it asks for HTML and not for JSON) gets the error page instead of the envelope. */
function isBrowser(ctx: RequestContext): boolean {
  return !ctx.wantsJson() && (ctx.header('accept') ?? '').includes('text/html')
}

/**
 * The answer to a failed list: the JSON body `envelope` (400 for a value the database refused,
 * 500 otherwise) for every client but a browser, which gets the kernel's HTML error page. A 500 is
 * logged; either way the request's log gets an `exception.raised` event.
 */
export function failureReply(
  ctx: RequestContext,
  error: ListQueryError,
  envelope: Record<string, unknown> = { ...errorEnvelope(error) },
): Reply {
  if (error.status >= 500)
    ctx.kernel.logger.error('list query failed', { error: error.cause, path: ctx.path })
  if (isBrowser(ctx)) {
    // Rendered by the kernel (HttpError → error page), which records `exception.raised` itself.
    throw new HttpError(error.status, { error: error.message }, { code: error.code, cause: error })
  }
  ctx.log.record('exception.raised', {
    name: error.name,
    message: error.message,
    code: error.sqlState,
    status: error.status,
  })
  return json(envelope, error.status)
}

/** The request's EntityManager (the database plugin's). */
export function emOf(ctx: RequestContext): SqlEntityManager {
  return ctx.kernel.plugin('database').em()
}

/**
 * Answers a list request: `{data, pagination, fields}`, or the error envelope (JSON clients) or
 * error page (browsers) when the query fails. Reads the request's query string unless given
 * other parameters.
 *
 * @example
 * router.get('products', (ctx) => listReply(ctx, products))
 */
export async function listReply(
  ctx: RequestContext,
  source: ListSource,
  params: ListParams = ctx.query,
): Promise<Reply> {
  try {
    const { data, pagination, fields } = await fetchList(emOf(ctx), source, params)
    return json({ data, pagination, fields })
  } catch (error) {
    if (error instanceof ListQueryError) return failureReply(ctx, error)
    throw error
  }
}
