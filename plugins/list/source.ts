import type { EntityName, EntityProperty, MetadataStorage, Platform } from '@mikro-orm/core'
import type { FwError } from 'fw'
import { listErrors } from './errors.js'
import { isFieldName, isIdentifier, quote } from './identifiers.js'

/** A value the engine binds as a statement parameter. */
export type ListValue = string | number | boolean | null

/** A table joined to the listed one: to at most one row per listed row (a many-to-one). */
export interface ListJoin {
  /** The joined table. */
  readonly table: string
  /** Its name in the query and the prefix of its fields; default: the table's name. */
  readonly as?: string
  /** The join condition as two qualified columns: `['categories.id', 'products.category_id']`. */
  readonly on: readonly [string, string]
}

/** What a list source declares (see {@link defineListSource}). */
export interface ListSourceDefinition {
  /** A name for messages; default: the table's. */
  readonly name?: string
  /** The entity whose table is listed (class, `EntitySchema` or name). Give this or `table`. */
  readonly entity?: EntityName<object>
  /** The table listed. Give this or `entity`. */
  readonly table?: string
  /** The primary key column; default: the entity's, else `id`. Always selected. */
  readonly primaryKey?: string
  /**
   * The available-fields whitelist: columns of the table (`name`) and of joined tables
   * (`categories.title`). Nothing else is ever selected, sorted, filtered or searched.
   */
  readonly fields: readonly string[]
  /** The fields returned when a request names none (or none that survive validation). */
  readonly defaultFields: readonly string[]
  /** The fields a plain-text search looks in. */
  readonly searchable?: readonly string[]
  /** Left joins to at most one row; each is only added to statements that use its fields. */
  readonly joins?: readonly ListJoin[]
  /**
   * A condition every statement includes (a tenant, soft-deleted rows): trusted SQL written by the
   * application, with `?` placeholders for its bindings. Callers never reach it.
   */
  readonly scope?: { readonly sql: string; readonly bindings?: readonly ListValue[] }
}

/** A whitelisted field, resolved against the database's metadata. */
export interface ResolvedField {
  /** The name in responses: the column, without its table prefix. */
  readonly key: string
  /** `table.column` (the join's alias for joined fields). */
  readonly qualified: string
  /** The quoted column reference: `"categories"."title"`. */
  readonly sql: string
  /** The alias of the join it needs, if any. */
  readonly join: string | undefined
  /** Whether the column may hold NULL (unknown columns and joined fields count as nullable). */
  readonly nullable: boolean
  /** Converts a driver value as the mapped entity property would (numeric → number, …). */
  readonly convert: ((value: unknown) => unknown) | undefined
}

/** A list source resolved for one database: what the compiler works from. */
export interface CompiledSource {
  readonly name: string
  readonly from: string
  readonly primaryKey: ResolvedField
  /** Every accepted spelling (`title`, `categories.title`, `products.name`, `name`) → its field. */
  readonly lookup: ReadonlyMap<string, ResolvedField>
  readonly defaults: readonly ResolvedField[]
  readonly searchable: readonly ResolvedField[]
  /** Join alias → its `LEFT JOIN … ON …` clause, in declaration order. */
  readonly joins: ReadonlyMap<string, string>
  readonly scope: { readonly sql: string; readonly bindings: readonly ListValue[] } | undefined
  /** PostgreSQL (PGlite included): `LIKE` becomes `ILIKE`, columns are cast to text for it. */
  readonly postgres: boolean
}

function invalid(name: string, message: string): FwError {
  return listErrors.error('FW_ERR_LIST_SOURCE_INVALID', { source: name, problem: message })
}

/**
 * A declared list: the whitelist and defaults of one endpoint. Create it with
 * {@link defineListSource}, once, at module level; it resolves itself against the ORM's metadata
 * on first use.
 */
export class ListSource {
  readonly definition: ListSourceDefinition
  readonly #compiled = new WeakMap<MetadataStorage, CompiledSource>()

  /** @internal use {@link defineListSource}. */
  constructor(definition: ListSourceDefinition) {
    this.definition = definition
  }

  /** The source resolved for a database (cached per ORM). */
  compile(metadata: MetadataStorage, platform: Platform, postgres: boolean): CompiledSource {
    let compiled = this.#compiled.get(metadata)
    if (compiled === undefined) {
      compiled = compileSource(this.definition, metadata, platform, postgres)
      this.#compiled.set(metadata, compiled)
    }
    return compiled
  }
}

/**
 * Declares a list source: the table (or entity), its whitelist, default field set, searchable
 * fields, joins and primary key. Checks the declaration's grammar at once; the entity and the
 * prefixes are checked on first use. Throws `FW_ERR_LIST_SOURCE_INVALID` naming the mistake.
 *
 * @example
 * export const products = defineListSource({
 *   entity: Product,
 *   fields: ['id', 'name', 'price', 'category_id', 'categories.title'],
 *   defaultFields: ['id', 'name', 'price'],
 *   searchable: ['name'],
 *   joins: [{ table: 'categories', on: ['categories.id', 'products.category_id'] }],
 * })
 */
export function defineListSource(definition: ListSourceDefinition): ListSource {
  const name = definition.name ?? definition.table ?? String(entityLabel(definition.entity))
  if ((definition.entity === undefined) === (definition.table === undefined))
    throw invalid(name, 'give exactly one of `entity` and `table`.')
  if (definition.table !== undefined && !isIdentifier(definition.table))
    throw invalid(name, `table ${JSON.stringify(definition.table)} is not a lowercase identifier.`)
  if (definition.fields.length === 0) throw invalid(name, '`fields` lists no field.')
  if (definition.defaultFields.length === 0) throw invalid(name, '`defaultFields` lists no field.')
  for (const list of [
    definition.fields,
    definition.defaultFields,
    definition.searchable ?? [],
    [definition.primaryKey ?? 'id'],
  ]) {
    for (const field of list) {
      if (!isFieldName(field))
        throw invalid(
          name,
          `${JSON.stringify(field)} is not a field name (\`column\` or \`table.column\`, lowercase).`,
        )
    }
  }
  for (const join of definition.joins ?? []) {
    if (!isIdentifier(join.table) || !isIdentifier(join.as ?? join.table))
      throw invalid(
        name,
        `join ${JSON.stringify(join.as ?? join.table)} is not a lowercase identifier.`,
      )
    if (!join.on.every((column) => isFieldName(column) && column.includes('.')))
      throw invalid(name, `the join on '${join.as ?? join.table}' needs two qualified columns.`)
  }
  return new ListSource(Object.freeze({ ...definition, name }))
}

function entityLabel(entity: EntityName<object> | undefined): string {
  if (entity === undefined) return 'list'
  if (typeof entity === 'string') return entity
  const named = entity as { name?: unknown; meta?: { className?: unknown } }
  const label = named.meta?.className ?? named.name
  return typeof label === 'string' ? label : 'list'
}

type AnyProperty = EntityProperty<object, object>

function converterOf(
  prop: AnyProperty | undefined,
  platform: Platform,
): ((value: unknown) => unknown) | undefined {
  if (prop === undefined) return undefined
  // MikroORM keeps PostgreSQL timestamps as strings and parses them itself; so do we.
  if (prop.runtimeType === 'Date')
    return (value) => (typeof value === 'string' ? platform.parseDate(value) : value)
  const type = prop.customType
  if (type === undefined) return undefined
  return (value) => (value == null ? value : type.convertToJSValue(value, platform))
}

/** The listed table and its primary key's column: the entity's, or as the definition names them. */
function sourceTable(
  definition: ListSourceDefinition,
  metadata: MetadataStorage,
  name: string,
): [string, string | undefined] {
  let table = definition.table
  let primaryKey = definition.primaryKey
  if (definition.entity !== undefined) {
    const meta = metadata.find(definition.entity)
    if (meta === undefined)
      throw invalid(
        name,
        'its entity is not one the database plugin knows. Register it in `entities`.',
      )
    table = meta.tableName
    const key = (meta.properties as Record<string, AnyProperty | undefined>)[meta.primaryKeys[0]!]
    primaryKey ??= key?.fieldNames[0]
    if (!isIdentifier(table)) throw invalid(name, `table '${table}' is not a lowercase identifier.`)
  }
  return [table!, primaryKey]
}

/** By table and column, the entity property that maps it: its values convert as the property's. */
function columnProperties(metadata: MetadataStorage): Map<string, Map<string, AnyProperty>> {
  const propsOf = new Map<string, Map<string, AnyProperty>>()
  for (const meta of Object.values(metadata.getAll())) {
    if (meta.embeddable || meta.virtual || !meta.tableName) continue
    const byColumn = new Map<string, AnyProperty>()
    for (const prop of Object.values(meta.properties) as AnyProperty[])
      if (prop.fieldNames?.length === 1) byColumn.set(prop.fieldNames[0]!, prop)
    propsOf.set(meta.tableName, byColumn)
  }
  return propsOf
}

/** Each join's `LEFT JOIN` clause by its alias; a join on a table it does not name fails. */
function joinClauses(
  definition: ListSourceDefinition,
  name: string,
  from: string,
): Map<string, string> {
  const joins = new Map<string, string>()
  for (const join of definition.joins ?? []) {
    const alias = join.as ?? join.table
    const [left, right] = join.on.map((column) => {
      const [a, c] = column.split('.') as [string, string]
      if (a !== alias && a !== from)
        throw invalid(
          name,
          `the join on '${alias}' refers to '${a}', which is neither '${alias}' nor '${from}'.`,
        )
      return `${quote(a)}.${quote(c)}`
    }) as [string, string]
    joins.set(alias, `LEFT JOIN ${quote(join.table)} AS ${quote(alias)} ON ${left} = ${right}`)
  }
  return joins
}

function compileSource(
  definition: ListSourceDefinition,
  metadata: MetadataStorage,
  platform: Platform,
  postgres: boolean,
): CompiledSource {
  const name = definition.name ?? 'list'
  const [from, primaryKey] = sourceTable(definition, metadata, name)
  const propsOf = columnProperties(metadata)
  const joinTables = new Map<string, string>()
  for (const join of definition.joins ?? []) joinTables.set(join.as ?? join.table, join.table)
  if (joinTables.has(from))
    throw invalid(name, `a join may not be called '${from}', the listed table.`)

  const resolve = (field: string): ResolvedField => {
    const dot = field.indexOf('.')
    const alias = dot === -1 ? from : field.slice(0, dot)
    const column = dot === -1 ? field : field.slice(dot + 1)
    const joined = alias !== from
    const realTable = joined ? joinTables.get(alias) : from
    if (realTable === undefined)
      throw invalid(
        name,
        `field '${field}' names '${alias}', which is neither the table nor a join.`,
      )
    const prop = propsOf.get(realTable)?.get(column)
    const isKey = !joined && column === primaryKey
    return {
      key: column,
      qualified: `${alias}.${column}`,
      sql: `${quote(alias)}.${quote(column)}`,
      join: joined ? alias : undefined,
      nullable: isKey ? false : joined || prop === undefined || prop.nullable === true,
      convert: converterOf(prop, platform),
    }
  }

  const lookup = new Map<string, ResolvedField>()
  for (const declared of definition.fields) {
    const field = resolve(declared)
    const clash = lookup.get(field.key)
    if (clash !== undefined && clash.qualified !== field.qualified)
      throw invalid(
        name,
        `'${clash.qualified}' and '${field.qualified}' would both answer as '${field.key}'.`,
      )
    lookup.set(field.key, field)
    lookup.set(field.qualified, field)
  }
  const known = (field: string, what: string): ResolvedField => {
    const found = lookup.get(field)
    if (found === undefined) throw invalid(name, `${what} '${field}' is not in \`fields\`.`)
    return found
  }
  const pk = resolve(primaryKey ?? 'id')
  if (pk.join !== undefined) throw invalid(name, 'the primary key must be a column of the table.')
  const shadow = lookup.get(pk.key)
  if (shadow !== undefined && shadow.qualified !== pk.qualified)
    throw invalid(
      name,
      `'${shadow.qualified}' would answer as '${pk.key}', the primary key's name.`,
    )
  const joins = joinClauses(definition, name, from)
  return {
    name,
    from,
    primaryKey: pk,
    lookup,
    defaults: dedupe(definition.defaultFields.map((f) => known(f, 'default field'))),
    searchable: dedupe((definition.searchable ?? []).map((f) => known(f, 'searchable field'))),
    joins,
    scope:
      definition.scope === undefined
        ? undefined
        : { sql: definition.scope.sql, bindings: [...(definition.scope.bindings ?? [])] },
    postgres,
  }
}

/** The fields without repeats, first occurrence kept. */
export function dedupe(fields: readonly ResolvedField[]): ResolvedField[] {
  const seen = new Set<string>()
  return fields.filter((f) => !seen.has(f.qualified) && Boolean(seen.add(f.qualified)))
}
