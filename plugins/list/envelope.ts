import type { SqlEntityManager } from '@mikro-orm/knex'
import { HttpError, json, type Reply, type RequestContext } from 'fw'
import type { ListDebug } from './list-debug.js'
import { fetchList, type ListParams } from './engine.js'
import { ListQueryError, QUERY_FAILED } from './errors.js'
import type { ListSource } from './source.js'

/** The error envelope of a failed list (README.md "Responses"). */
export interface ListErrorEnvelope {
  error: string
  data: []
  pagination: null
  fields: string[]
  /** Only where details are shown (development, a debug grant). */
  debug?: ListDebug
}

/**
 * True when a failed list may show the database's message and the SQL fragments: in development
 * mode, or to a holder of a debug grant (asked of the debug plugin when it is registered; the list
 * plugin does not depend on it).
 */
export function showsListDetails(ctx: RequestContext): boolean {
  if (ctx.kernel.isDevelopment()) return true
  return ctx.kernel.hasPlugin('debug') && ctx.kernel.plugin('debug').hasDebugGrant(ctx)
}

/**
 * The error envelope for a failed list. With `details` (see {@link showsListDetails}): `error` is
 * `Database query failed: <database message>` and `debug` holds the SQL fragments, with `?`
 * placeholders and never a value. Without: `error` is `Database query failed` and there is no
 * `debug`.
 */
export function errorEnvelope(error: ListQueryError, details = false): ListErrorEnvelope {
  const envelope: ListErrorEnvelope = {
    error: details ? error.message : QUERY_FAILED,
    data: [],
    pagination: null,
    fields: [...error.fields],
  }
  if (details) envelope.debug = { ...error.debug }
  return envelope
}

/** A browser (it asks for HTML and not for JSON) gets the error page instead of the envelope. */
function isBrowser(ctx: RequestContext): boolean {
  return !ctx.wantsJson() && (ctx.header('accept') ?? '').includes('text/html')
}

/**
 * The answer to a failed list: the JSON body `envelope` (400 for a value the database refused,
 * 500 otherwise) for every client but a browser, which gets the kernel's HTML error page; the
 * database's message only where {@link showsListDetails} allows. A 500 is logged; either way the
 * request's log gets an `exception.raised` event.
 */
export function failureReply(
  ctx: RequestContext,
  error: ListQueryError,
  envelope: Record<string, unknown> = { ...errorEnvelope(error, showsListDetails(ctx)) },
): Reply {
  if (error.status >= 500)
    ctx.kernel.logger.error('list query failed', { error: error.cause, path: ctx.path })
  if (isBrowser(ctx)) {
    // Rendered by the kernel (HttpError → error page), which records `exception.raised` itself.
    const message = showsListDetails(ctx) ? error.message : QUERY_FAILED
    throw new HttpError(error.status, { error: message }, { code: error.code, cause: error })
  }
  ctx.log.record('exception.raised', {
    name: error.name,
    message: error.message,
    code: error.sqlState,
    status: error.status,
  })
  return json(envelope, error.status)
}

/** One EntityManager per ORM for list reads outside a request's own (see {@link emOf}). */
const readers = new WeakMap<object, SqlEntityManager>()

/**
 * The EntityManager a list runs with: the request's own once it has one (so a list inside its
 * transaction sees it), else one shared by every list read of the ORM. A list reads plain rows
 * (the list engine's statements on the database plugin's read path) and never uses a unit of
 * work, so a request that only lists forks no EntityManager of its own.
 */
export function emOf(ctx: RequestContext): SqlEntityManager {
  const own = ctx.state.em
  if (own !== undefined) return own as SqlEntityManager
  const orm = ctx.kernel.plugin('database').orm
  let em = readers.get(orm)
  if (em === undefined) {
    em = orm.em.fork({ disableContextResolution: true }) as SqlEntityManager
    readers.set(orm, em)
  }
  return em
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
  return answerList(ctx, async (em) => {
    const { data, pagination, fields } = await fetchList(em, source, params)
    return { data, pagination, fields }
  })
}

/**
 * Answers with what `fetch` reads as JSON, or a failed list query as {@link failureReply} does
 * (with the JSON body `envelope` builds, when given); any other error goes on to the kernel.
 */
export async function answerList(
  ctx: RequestContext,
  fetch: (em: SqlEntityManager) => Promise<unknown>,
  envelope?: (error: ListQueryError) => Record<string, unknown>,
): Promise<Reply> {
  try {
    return json(await fetch(emOf(ctx)))
  } catch (error) {
    if (!(error instanceof ListQueryError)) throw error
    return failureReply(ctx, error, envelope?.(error))
  }
}
