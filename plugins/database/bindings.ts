import { createHash } from 'node:crypto'
import type { MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { Kernel } from 'fw'
import { runRead } from './bound-query.js'
import { classNameOf, type EntityDeclaration } from './deferred-entity.js'
import type { OpenedDatabase } from './orm.js'

/** How a binding loads one entity by its key, worked out from the metadata on first use. */
interface BindingPlan {
  /** True when the key is numeric: a value that is not digits is no record (a 404). */
  readonly numeric: boolean
  /** `select * from "<table>" where "<key column>" = ? limit 1`, identifiers from the metadata. */
  readonly sql: string
  /** The same with `$1`, and the name it is prepared under on each connection. */
  readonly text: string
  readonly name: string
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

function planOf(orm: MikroORM, className: string): BindingPlan | null {
  const meta = orm.getMetadata().find(className)
  const pk = meta?.primaryKeys.length === 1 ? meta.properties[meta.primaryKeys[0]!] : undefined
  const column = pk?.fieldNames?.[0]
  if (meta === undefined || pk === undefined || column === undefined || meta.virtual) return null
  const where = `select * from ${quoteIdentifier(meta.tableName)} where ${quoteIdentifier(column)} = `
  return {
    numeric: ['number', 'bigint'].includes(pk.runtimeType),
    sql: `${where}? limit 1`,
    text: `${where}$1 limit 1`,
    name: `fw_bind_${createHash('sha256').update(where).digest('hex').slice(0, 16)}`,
  }
}

/**
 * A binding loader per entity, under its class name. A key the column could not hold (a numeric
 * key that is not a number) is no record: a 404, not a database error. The lookup is the hot path
 * of every `/things/{thing}` route, so it skips the query builder and, until something needs one,
 * the request's EntityManager: the models this request already loaded first, then one statement
 * with the key as a bound parameter (on PostgreSQL a named prepared statement on the plugin's read
 * pool, so each connection parses it once), hydrated as `em.findOne()` hydrates. An entity of
 * scalar properties is not registered with an EntityManager until the request uses one
 * (`bound-models.ts`): a read costs no fork.
 */
export function registerBindings(
  kernel: Kernel,
  opened: () => OpenedDatabase,
  entities: readonly EntityDeclaration[],
): void {
  for (const entity of entities) {
    const className = classNameOf(entity)
    let plan: BindingPlan | null | undefined
    kernel.binding(className, (value, ctx) => {
      const db = opened()
      plan ??= planOf(db.orm, className)
      if (plan === null) {
        const em = db.forRequest(ctx) as EntityManager
        return em.findOne(className, value).then((found) => found ?? undefined)
      }
      if (plan.numeric && !/^\d{1,15}$/.test(value)) return Promise.resolve(undefined)
      const key = plan.numeric ? Number(value) : value
      const known = db.loadedModel(ctx, className, key)
      if (known !== undefined) return Promise.resolve(known)
      const rows = runRead(
        db.connections(),
        db.transactionOf(ctx),
        { name: plan.name, sql: plan.sql, text: plan.text, values: [key] },
        ctx,
      )
      return rows.then((found) => {
        const row = found[0]
        const entity = row === undefined ? undefined : db.modelOf(ctx, className, key, row)
        if (entity !== undefined) ctx.log.record('model.loaded', { entity: className, id: key })
        return entity
      })
    })
  }
}
