// bench/list.ts's two sides: the hand-written SQL of the benchmark's list, run with `pg`, and the
// engine's statements run one at a time (data without count, count without data) through the
// engine's own modules, to show where a request's time goes.
import type { SqlEntityManager } from '@mikro-orm/knex'
import type pg from 'pg'
import { countStatement, dataStatement } from '../../plugins/list/compile.js'
import { compiledFor, countOf, planList, present, run } from '../../plugins/list/engine.js'
import { readPaging } from '../../plugins/list/read-params.js'
import { productList } from '../../playground/list/products-source.js'

/** A page as both sides compare it. */
export interface Page {
  data: Record<string, unknown>[]
  total: number
}

const WHERE = 'active = $1 AND price >= $2'
const FILTER = [true, 100]

/** The benchmark's list, written by hand. */
export function handWritten(pool: pg.Pool, perPage: number) {
  const data = async (page: number): Promise<Record<string, unknown>[]> => {
    const { rows } = await pool.query(
      `SELECT id, name, sku, price, stock FROM products WHERE ${WHERE} ORDER BY price DESC, id DESC LIMIT $3 OFFSET $4`,
      [...FILTER, perPage, (page - 1) * perPage],
    )
    return rows.map((r: Record<string, unknown>) => ({ ...r, price: Number(r.price) }))
  }
  const count = async (): Promise<number> => {
    const { rows } = await pool.query(`SELECT count(*) FROM products WHERE ${WHERE}`, FILTER)
    return Number((rows[0] as { count: string }).count)
  }
  return {
    data,
    count,
    /** Data and count, as a list request needs them. */
    async page(page: number): Promise<Page> {
      const rows = await data(page)
      return { data: rows, total: await count() }
    },
    /**
     * The keyset cursor that continues after the row at `offset` (0-based): the engine's format,
     * `{o: order, v: values}`, base64url.
     */
    async cursorBefore(offset: number): Promise<string> {
      const { rows } = await pool.query(
        `SELECT price, id FROM products WHERE ${WHERE} ORDER BY price DESC, id DESC LIMIT 1 OFFSET $3`,
        [...FILTER, offset - 1],
      )
      const row = rows[0] as { price: string; id: number }
      return Buffer.from(
        JSON.stringify({ o: '-products.price,-products.id', v: [row.price, row.id] }),
      ).toString('base64url')
    },
    /** The plan's outer nodes for a page, on one line. */
    async plan(page: number): Promise<string> {
      const { rows } = await pool.query(
        `EXPLAIN SELECT id, name, sku, price, stock FROM products WHERE ${WHERE} ORDER BY price DESC, id DESC LIMIT $3 OFFSET $4`,
        [...FILTER, perPage, (page - 1) * perPage],
      )
      return rows
        .map((r: Record<string, string>) => r['QUERY PLAN']!.trim().replace(/\s+\(cost=.*$/, ''))
        .filter((line: string) => !line.startsWith('Index Cond') && !line.startsWith('Filter'))
        .join(' / ')
    },
  }
}

function plan(em: SqlEntityManager, query: Record<string, unknown>) {
  const keyset = typeof query.after === 'string'
  const { plan, named } = planList(compiledFor(em, productList), query, { keyset })
  const paging = readPaging(query.page, query.per_page)
  const window = keyset
    ? { offset: 0, limit: paging.perPage + 1 }
    : { offset: paging.offset, limit: paging.perPage }
  return { plan, named, window }
}

/** The engine's data statement alone: parameters read, SQL built, run, rows mapped. */
export async function engineData(
  em: SqlEntityManager,
  query: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const { plan: p, named, window } = plan(em, query)
  const statement = dataStatement(p, window)
  return present(await run(em, statement, named, statement.debug), p.select)
}

/** The engine's count statement alone. */
export async function engineCount(
  em: SqlEntityManager,
  query: Record<string, unknown>,
): Promise<number> {
  const { plan: p, named } = plan(em, query)
  const statement = countStatement(p, true)
  const debug = { filter: '', order: '', selectFields: '' }
  return countOf(await run(em, statement, named, debug))
}
