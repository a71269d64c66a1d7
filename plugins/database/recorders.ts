import {
  DefaultLogger,
  helper,
  type EventArgs,
  type EventSubscriber,
  type LogContext,
} from '@mikro-orm/core'
import { currentContext, type RequestContext } from 'fw'

/**
 * The key of a request's EntityManager's logger context that holds the request (see `requestEm`):
 * its statements and models are recorded in that request's log without asking the request scope,
 * so they are recorded even when the scope is off (`requestScope: false`).
 */
export const REQUEST_KEY = 'fwRequest'

/** The request a statement or model belongs to: its EntityManager's, else the current one. */
function requestOf(loggerContext: Record<string, unknown> | undefined): RequestContext | undefined {
  return (loggerContext?.[REQUEST_KEY] as RequestContext | undefined) ?? currentContext()
}

/**
 * MikroORM's logger, extended to record every statement as a `query.executed` event in the log of
 * the request that ran it (its EntityManager's, else the one the kernel's request scope finds), and
 * no other request's. MikroORM's own debug output is unchanged.
 */
export class QueryRecorder extends DefaultLogger {
  override logQuery(context: LogContext): void {
    const ctx = requestOf(context)
    if (ctx !== undefined && context.query !== undefined) {
      ctx.log.record('query.executed', {
        sql: context.query,
        params: context.params ?? [],
        duration: context.took ?? 0,
        rows: context.results ?? context.affected,
        failed: context.level === 'error',
      })
    }
    if (context.query !== undefined) super.logQuery({ ...context, query: context.query })
  }
}

function idOf(args: EventArgs<object>): unknown {
  try {
    return helper(args.entity).getPrimaryKey()
  } catch {
    return undefined
  }
}

function record(
  type: 'model.loaded' | 'model.created' | 'model.updated' | 'model.deleted',
  args: EventArgs<object>,
): void {
  const ctx = requestOf(args.em.getLoggerContext())
  if (ctx !== undefined) ctx.log.record(type, { entity: args.meta.className, id: idOf(args) })
}

/** Records `model.*` events for every entity loaded, created, updated or deleted in a request. */
export class ModelRecorder implements EventSubscriber<object> {
  onLoad(args: EventArgs<object>): void {
    record('model.loaded', args)
  }
  afterCreate(args: EventArgs<object>): void {
    record('model.created', args)
  }
  afterUpdate(args: EventArgs<object>): void {
    record('model.updated', args)
  }
  afterDelete(args: EventArgs<object>): void {
    record('model.deleted', args)
  }
}
