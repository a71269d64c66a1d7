// The list engine: sorting, filtering, field selection, search and paging for list endpoints
// (README.md "Parameters", "Responses"), plus the DataTables protocol.
import type { SqlEntityManager } from '@mikro-orm/knex'
import { currentContext, definePlugin, type Reply, type RequestContext } from 'fw'
import { datatableReply, fetchDatatable, type DatatableResult } from './datatables.js'
import {
  fetchAll,
  fetchList,
  lastListError,
  type ListParams,
  type ListResult,
  type ListRow,
} from './engine.js'
import { emOf, listReply } from './envelope.js'
import type { ListQueryError } from './errors.js'
import { DEFAULT_MAX_SEARCH_LENGTH } from './input-limits.js'
import type { ListSource } from './source.js'

/** What `kernel.plugin('list')` returns: the engine bound to the request's EntityManager. */
export interface ListApi {
  /** One page, its pagination and fields; throws a `ListQueryError` when the database fails. */
  fetch(source: ListSource, params?: ListParams): Promise<ListResult>
  /** Every matching row; `[]` on failure too, told apart by {@link ListApi.lastError}. */
  fetchAll(source: ListSource, params?: ListParams): Promise<ListRow[]>
  /** The last `fetchAll` failure of this request, or null when it succeeded. */
  lastError(): ListQueryError | null
  /** A DataTables answer's body; throws a `ListQueryError` when the database fails. */
  fetchDatatable(
    source: ListSource,
    query: Readonly<Record<string, unknown>>,
  ): Promise<DatatableResult>
  /** The list reply for a request: envelope, error envelope or error page. */
  reply(ctx: RequestContext, source: ListSource, params?: ListParams): Promise<Reply>
  /** The DataTables reply for a request. */
  datatable(ctx: RequestContext, source: ListSource): Promise<Reply>
}

declare module 'fw' {
  interface PluginApis {
    list: ListApi
  }
  interface FwConfig {
    list: {
      /**
       * The longest search term or `LIKE` filter value, in characters (default 200); a longer
       * one answers 422 `search_too_long` (README.md "Refused input").
       */
      max_search_length: number
    }
  }
}

/**
 * The list engine as a plugin: `kernel.plugin('list')` runs list sources against the database
 * plugin's request-scoped EntityManager. The functions it wraps are exported too, for code that
 * holds an EntityManager of its own.
 *
 * @example
 * kernel.register(database, { entities }).register(list)
 * kernel.router.get('products', (ctx) => ctx.kernel.plugin('list').reply(ctx, products))
 */
export default definePlugin<void, ListApi>({
  name: 'list',
  dependsOn: ['database'],
  // debug: a request with a debug grant sees a failed list's SQL.
  optionalDependsOn: ['debug'],
  config: {
    defaults: { list: { max_search_length: DEFAULT_MAX_SEARCH_LENGTH } },
    schema: { 'list.max_search_length': { kind: 'integer', min: 1 } },
  },
  setup(kernel) {
    const db = kernel.plugin('database')
    // In a request, the list reads without forking the request an EntityManager (see `emOf`).
    const em = (): SqlEntityManager => {
      const ctx = currentContext()
      return ctx === undefined ? db.em() : emOf(ctx)
    }
    return {
      fetch: (source, params) => fetchList(em(), source, params),
      fetchAll: (source, params) => fetchAll(em(), source, params),
      lastError: lastListError,
      fetchDatatable: (source, query) => fetchDatatable(em(), source, query),
      reply: (ctx, source, params) => listReply(ctx, source, params),
      datatable: (ctx, source) => datatableReply(ctx, source),
    }
  },
})

export { defineListSource, ListSource } from './source.js'
export { datatableRouteSchema, listItemSchema, listQuerySchema, listRouteSchema } from './schema.js'
export type { ListSchemaOptions } from './schema.js'
export type { ListSourceDefinition, ListJoin, ListValue } from './source.js'
export { fetchList, fetchAll, lastListError } from './engine.js'
export type { ListInput, ListParams, ListResult, ListRow, Pagination } from './engine.js'
export { listReply, errorEnvelope, failureReply, showsListDetails } from './envelope.js'
export type { ListErrorEnvelope } from './envelope.js'
export { datatableReply, fetchDatatable, datatableParams } from './datatables.js'
export type { DatatableResult } from './datatables.js'
export { ListQueryError, isListQueryError, listErrors, QUERY_FAILED } from './errors.js'
export { OPERATORS } from './read-filter.js'
export { pageCount, readPaging } from './read-params.js'
export type { Paging } from './read-params.js'
export type { FilterEntry, FilterCondition, FilterGroup, Operator } from './read-filter.js'
export type { ListDebug } from './list-debug.js'
