import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { RequestContext } from 'fw'
import { positionedIn, type BoundRead, type Statement } from './bound-query.js'
import type { OpenedDatabase } from './orm.js'
import { sql, type SqlStatement } from './sql.js'
import type { RequestDatabase } from './types.js'

/** How the plugin runs a read: the statement, an EntityManager's transaction, the request. */
export type Read = (
  statement: BoundRead | ((db: OpenedDatabase) => BoundRead),
  em: EntityManager | undefined,
  ctx: RequestContext | undefined,
) => Promise<Record<string, unknown>[]>

/**
 * `db.forRequest(ctx)`: the plugin's reads and the request's EntityManager with `ctx` handed over
 * rather than found through the request scope. One small object; its methods live on the prototype.
 */
export class RequestView implements RequestDatabase {
  readonly #ctx: RequestContext
  readonly #read: Read
  readonly #opened: () => OpenedDatabase

  constructor(ctx: RequestContext, read: Read, opened: () => OpenedDatabase) {
    this.#ctx = ctx
    this.#read = read
    this.#opened = opened
  }

  em(): EntityManager {
    return this.#opened().forRequest(this.#ctx) as EntityManager
  }

  sql<Row extends object = Record<string, unknown>>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Promise<Row[]> {
    return this.#read(sql<Row>(strings, ...values), undefined, this.#ctx) as Promise<Row[]>
  }

  query<Row extends object>(statement: SqlStatement<Row>): Promise<Row[]> {
    return this.#read(statement, undefined, this.#ctx) as Promise<Row[]>
  }

  runStatement(statement: Statement): Promise<Record<string, unknown>[]> {
    return this.#read(positionedIn(statement), undefined, this.#ctx)
  }
}
