import {
  DefaultLogger,
  helper,
  type EventArgs,
  type EventSubscriber,
  type LogContext,
} from '@mikro-orm/core'
import { currentContext } from 'fw'

/**
 * MikroORM's logger, extended to record every statement as a `query.executed` event in the log of
 * the request that ran it (found through the kernel's request scope), and no other request's.
 * MikroORM's own debug output is unchanged.
 */
export class QueryRecorder extends DefaultLogger {
  override logQuery(context: LogContext): void {
    const ctx = currentContext()
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
  const ctx = currentContext()
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
