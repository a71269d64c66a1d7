import { createRequire } from 'node:module'
import type * as MikroCore from '@mikro-orm/core'
import type { AnyEntitySchema } from './orm.js'

/** MikroORM's core module, required (not imported: Node would lex its ~130 files for named exports) when a schema is first built. */
const mikroCore = (): typeof MikroCore =>
  createRequire(import.meta.url)('@mikro-orm/core') as typeof MikroCore

/**
 * An entity whose MikroORM `EntitySchema` is built when the database opens, not when the app
 * loads: `@mikro-orm/core` (~100 ms to load) then stays out of the processes that never open the
 * database, such as `fw route:list`. Its class name is what the plugin needs before that (route
 * bindings are declared at boot).
 */
export interface DeferredEntity {
  readonly deferred: true
  /** The entity's class name (`meta.className` of the schema it builds). */
  readonly className: string
  /** The schema, built on the first call; the same object on every call after. */
  schema(): AnyEntitySchema
}

/** What the plugin's `entities` option and `addEntities()` accept. */
export type EntityDeclaration = AnyEntitySchema | DeferredEntity

/**
 * Declares an entity whose schema `build` makes on first need (the database opening), from
 * MikroORM's core module, which it is handed: the module declaring the entity imports MikroORM's
 * types only, so loading it loads no MikroORM.
 *
 * @example
 * export class Product { id!: number; name!: string }
 * export const ProductEntity = deferEntity(Product, ({ EntitySchema }) =>
 *   new EntitySchema<Product>({ class: Product, properties: { ... } }),
 * )
 */
export function deferEntity(
  entity: abstract new (...args: never[]) => object,
  build: (core: typeof MikroCore) => AnyEntitySchema,
): DeferredEntity {
  let built: AnyEntitySchema | undefined
  const className = entity.name
  return {
    deferred: true,
    className,
    schema() {
      if (built !== undefined) return built
      const schema = build(mikroCore())
      if (schema.meta.className !== className) {
        throw new Error(
          `deferEntity(${className}) built the schema of '${schema.meta.className}': build the schema of the class it declares.`,
        )
      }
      return (built = schema)
    },
  }
}

function isDeferred(entity: EntityDeclaration): entity is DeferredEntity {
  return (entity as Partial<DeferredEntity>).deferred === true
}

/** The class name of a declared entity, without building a deferred one's schema. */
export function classNameOf(entity: EntityDeclaration): string {
  return isDeferred(entity) ? entity.className : entity.meta.className
}

/** The schema of a declared entity, a deferred one's built now. */
export function schemaOf(entity: EntityDeclaration): AnyEntitySchema {
  return isDeferred(entity) ? entity.schema() : entity
}
