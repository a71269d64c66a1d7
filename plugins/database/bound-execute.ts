// MikroORM's statements with their values as bound parameters, never SQL text.
//
// MikroORM 6 runs every statement it makes (finds, flushes, `em.execute`, migrations' queries)
// through its connection's `execute`, which inlines the parameters into the text
// (`platform.formatQuery`) and hands knex the result as a raw statement without bindings. Escaped,
// so no injection, but a value is then part of the statement: a driver that reads the text (the
// PGlite dialect split it on every `;`, values included) answers wrongly, and the database parses a
// new statement for every value. `bindOrmStatements` replaces that `execute` with one that scans
// the statement as `formatQuery` does (`??` an identifier, `\?` a literal `?`, `?` a value) and
// sends each value as a parameter. Guarded by test/plugins/database/bound-values.test.ts and the
// property test test/plugins/database/values-roundtrip.test.ts.
import type { EventEmitter } from 'node:events'
import { JsonProperty, RawQueryFragment, Utils } from '@mikro-orm/core'
import { connectionsFor } from './bound-query.js'

/** MikroORM's platform, as far as the scan relies on it. */
interface Platform {
  quoteIdentifier(id: string): string
  quoteValue(value: unknown): string
  formatQuery(sql: string, params: readonly unknown[]): string
  formatDate(date: Date): string
}

/** A statement with `?` placeholders (literal question marks as `\?`) and its values, in order. */
export interface BoundSql {
  readonly sql: string
  readonly bindings: unknown[]
}

/** knex's Raw and Ref builders: knex splices them into the statement itself. */
function isKnexBuilder(value: object): boolean {
  const name = value.constructor?.name
  return (name === 'Raw' || name === 'Ref') && 'client' in value
}

/** `?` in text that must stay text (an identifier), escaped so that knex binds nothing there. */
function escapeMarks(text: string): string {
  return text.replaceAll('?', '\\?')
}

/** Appends one value: spliced SQL for a raw fragment, placeholders for a list, else one binding. */
function bindValue(platform: Platform, value: unknown, out: unknown[]): string {
  if (value === undefined || value === null) {
    out.push(null)
    return '?'
  }
  if (typeof value !== 'object') {
    out.push(value)
    return '?'
  }
  if (RawQueryFragment.isRaw(value)) {
    const fragment = value as unknown as { sql: string; params?: readonly unknown[] }
    return bindInto(platform, fragment.sql, fragment.params ?? [], out)
  }
  if (isKnexBuilder(value)) {
    out.push(value)
    return '?'
  }
  if (Array.isArray(value)) return value.map((item) => bindValue(platform, item, out)).join(', ')
  if (value instanceof Date) {
    // As `formatQuery` spells a date (UTC ISO under `forceUtcTimezone`): the same instant and
    // text whether a column is `timestamptz` or `timestamp`.
    out.push(platform.formatDate(value))
    return '?'
  }
  if (ArrayBuffer.isView(value)) {
    out.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength))
    return '?'
  }
  // A plain object, or one MikroORM marked as a JSON value (a cloned embeddable): its JSON text,
  // as `quoteValue` would have quoted it.
  const json = Utils.isPlainObject(value) || (value as { [JsonProperty]?: unknown })[JsonProperty]
  out.push(json ? JSON.stringify(value) : value)
  return '?'
}

function bindInto(
  platform: Platform,
  sql: string,
  params: readonly unknown[],
  out: unknown[],
): string {
  if (params.length === 0) return sql
  let text = ''
  let from = 0
  let next = 0
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', from)) {
    if (at > 0 && sql[at - 1] === '\\') {
      // Already `\?`: knex keeps it as a literal question mark.
      text += sql.slice(from, at + 1)
      from = at + 1
    } else if (sql[at + 1] === '?') {
      text += sql.slice(from, at) + escapeMarks(platform.quoteIdentifier(String(params[next++])))
      from = at + 2
    } else {
      text += sql.slice(from, at) + bindValue(platform, params[next++], out)
      from = at + 1
    }
  }
  return text + sql.slice(from)
}

/**
 * The statement `formatQuery(sql, params)` would have made, with every value a `?` placeholder
 * and its binding instead: identifiers (`??`) are quoted into the text, raw fragments spliced
 * with their own values bound, a list expanded to one placeholder per item (`in (?)` with
 * `[1, 2]` becomes `in (?, ?)`), a plain object bound as its JSON text, a date as the text
 * `formatQuery` would have quoted.
 */
export function bindStatement(
  platform: Platform,
  sql: string,
  params: readonly unknown[],
): BoundSql {
  const bindings: unknown[] = []
  return { sql: bindInto(platform, sql, params, bindings), bindings }
}

/** MikroORM's SQL connection, as far as {@link bindOrmStatements} relies on it. */
interface SqlConnection {
  readonly config: {
    get(key: 'onQuery'): (sql: string, params: readonly unknown[]) => string
    getLogger(): { isEnabled(namespace: string, context?: unknown): boolean }
  }
  readonly platform: Platform
  ensureConnection(): Promise<void>
  getKnex(): KnexLike
  executeQuery<T>(sql: string, cb: () => Promise<T>, context?: object): Promise<T>
  transformRawResult<T>(response: unknown, method: string): T
  execute(
    queryOrKnex: string | KnexQuery,
    params?: readonly unknown[],
    method?: string,
    ctx?: unknown,
    loggerContext?: object,
  ): Promise<unknown>
}

interface KnexQuery {
  readonly client: { readonly transacting?: boolean }
  toSQL(): { sql: string; bindings?: readonly unknown[] }
}

interface KnexLike {
  readonly client: { positionBindings(sql: string): string }
  raw(
    sql: string,
    bindings?: readonly unknown[],
  ): PromiseLike<unknown> & {
    transacting(ctx: unknown): unknown
  }
}

/**
 * Makes the connection's `execute` send values as bound parameters (see the top of this file). It
 * keeps what the original does around that: `onQuery` sees the statement and its values first,
 * the statement joins the transaction `ctx` (or the one the builder was made in), the query
 * logger reports it as before, and the result has the shape MikroORM expects.
 */
export function bindOrmStatements(connection: object): void {
  const sql = connection as SqlConnection
  sql.execute = async function (
    this: SqlConnection,
    queryOrKnex: string | KnexQuery,
    params: readonly unknown[] = [],
    method = 'all',
    ctx?: unknown,
    loggerContext?: object,
  ) {
    await this.ensureConnection()
    let query: string
    if (typeof queryOrKnex === 'string') query = queryOrKnex
    else {
      ctx ??= queryOrKnex.client.transacting === true ? queryOrKnex : null
      const built = queryOrKnex.toSQL()
      query = built.sql
      params = built.bindings ?? []
    }
    query = this.config.get('onQuery')(query, params)
    const bound = bindStatement(this.platform, query, params)
    const knex = this.getKnex()
    return this.executeQuery(
      loggedSql(this, knex, query, params, loggerContext),
      async () => {
        // Nothing to bind (no values, or only identifiers and raw text): the text as MikroORM
        // made it, which knex then runs as it is.
        if (!ctx && (method === 'all' || method === 'get')) {
          const pipelined = readOnPool(this, knex, bound)
          if (pipelined !== undefined) return this.transformRawResult(await pipelined, method)
        }
        const statement =
          bound.bindings.length === 0
            ? knex.raw(this.platform.formatQuery(query, params))
            : knex.raw(bound.sql, bound.bindings)
        if (ctx) statement.transacting(ctx)
        return this.transformRawResult(await statement, method)
      },
      { query, params, ...loggerContext },
    )
  }
}

/** A read: a statement that starts with `select` or `with`. */
const READ = /^\s*(select|with)\s/i
/** A read that writes (a CTE) or locks rows: it goes through knex, as before. */
const WRITES_OR_LOCKS = /\bfor\s+(update|share|no\s+key|key)\b|\b(insert|update|delete)\b/i

/**
 * A read outside a transaction on the database plugin's read pool (read-pool.ts), pipelined with
 * the other requests' statements rather than on a connection of knex's pool taken for it alone
 * (knex's acquire and release cost some twenty promises); undefined when it must go through knex:
 * not a read, locking rows (`for update`, which needs a transaction), a CTE that writes, or no read
 * pool (PGlite, or the ORM closed). Guarded by test/plugins/database/orm-pipelined.test.ts.
 */
function readOnPool(
  connection: SqlConnection,
  knex: KnexLike,
  bound: BoundSql,
): Promise<{ rows: Record<string, unknown>[] }> | undefined {
  if (!READ.test(bound.sql) || WRITES_OR_LOCKS.test(bound.sql)) return undefined
  // knex splices its own builders into the text: those go through knex.
  for (const value of bound.bindings)
    if (typeof value === 'object' && value !== null && isKnexBuilder(value)) return undefined
  const connections = connectionsFor(connection.config)
  const read = connections?.readPool
  if (read === undefined || (connections!.client as { pool?: unknown }).pool === undefined)
    return undefined
  const text = knex.client.positionBindings(bound.sql)
  // knex's `query` event, as knex would have emitted it, for whoever listens (tooling, tests).
  const events = knex.client as unknown as Partial<EventEmitter>
  if ((events.listenerCount?.('query') ?? 0) > 0)
    events.emit?.('query', { method: 'raw', sql: bound.sql, bindings: bound.bindings, options: {} })
  return new Promise((resolve, reject) => {
    read({ text, values: bound.bindings }, (error, rows) =>
      rows === undefined
        ? reject(error ?? new Error('the database did not answer'))
        : resolve({ rows }),
    )
  })
}

/** The statement as MikroORM's own query logger shows it (values inlined only for its eyes). */
function loggedSql(
  connection: SqlConnection,
  knex: KnexLike,
  query: string,
  params: readonly unknown[],
  context: object | undefined,
): string {
  const logger = connection.config.getLogger()
  if (!logger.isEnabled('query', context)) return query
  if (logger.isEnabled('query-params', context))
    return connection.platform.formatQuery(query, params)
  return knex.client.positionBindings(query)
}
