import {
  EventType,
  ReferenceKind,
  type EntityData,
  type EntityFactory,
  type EntityManager,
  type EntityMetadata,
  type Configuration,
  type MikroORM,
} from '@mikro-orm/core'
import type { RequestContext } from 'fw'

// Models a route binding loaded before the request had an EntityManager (README.md "Route
// binding"). A read (a show action, a page that displays the record) needs no unit of work, so the
// binding does not fork one: it hydrates the row into an instance of the entity's class and keeps
// the row as the entity's snapshot. The first time the request reaches for its EntityManager
// (`em()`, `orm.em`) or anything looks at the model's ORM state (MikroORM's `wrap()`, `toJSON`,
// `em.assign`: they all go through the entity's `__helper`), the request's EntityManager is forked
// and adopts every such model exactly as `em.findOne()` would have registered it, so writes
// (assign, flush, remove) keep the ORM's semantics, change detection included.

declare module 'fw' {
  interface ContextState {
    /** Bound models waiting for the request's EntityManager, by `<class>\0<key>` (database plugin). */
    boundModels?: Map<string, BoundModel>
  }
}

/** A model loaded without an EntityManager and the row it was hydrated from. */
interface BoundModel {
  readonly entity: object
  readonly data: EntityData<object>
}

/**
 * True when the entity can be bound without an EntityManager: scalar properties only (a relation
 * or an embeddable needs the factory and the identity map to hydrate), one primary key, no
 * discriminator, no `onInit` listener (which the factory would call), not created through its
 * constructor.
 */
export function isDetachable(orm: MikroORM, meta: EntityMetadata): boolean {
  return (
    meta.primaryKeys.length === 1 &&
    !meta.virtual &&
    !meta.embeddable &&
    meta.discriminatorColumn === undefined &&
    !meta.forceConstructor &&
    !orm.config.get('forceEntityConstructor') &&
    meta.props.every((prop) => prop.kind === ReferenceKind.SCALAR && prop.embedded === undefined) &&
    !orm.em.getEventManager().hasListeners(EventType.onInit, meta)
  )
}

function keyOf(className: string, key: unknown): string {
  return `${className}\u0000${String(key)}`
}

/** The model a binding already loaded for this request, if any. */
export function boundModel(
  ctx: RequestContext,
  className: string,
  key: unknown,
): object | undefined {
  return ctx.state.boundModels?.get(keyOf(className, key))?.entity
}

/**
 * An instance of the entity's class holding the row's values, converted as the ORM converts them
 * (its generated hydrator), as plain own properties: no EntityManager, no identity map. Kept in
 * the request until its EntityManager adopts it (see {@link adoptBoundModels}).
 */
export function bindDetached(
  ctx: RequestContext,
  hydrator: ReturnType<Configuration['getHydrator']>,
  meta: EntityMetadata,
  key: unknown,
  data: EntityData<object>,
  adopt: (ctx: RequestContext) => void,
): object {
  const values: Record<string, unknown> = {}
  // Scalars only (see isDetachable): the hydrator assigns converted values and normalises `data`
  // into the snapshot the unit of work compares against; the factory is never reached.
  const factory = (meta.prototype as { __factory: EntityFactory }).__factory
  hydrator.hydrate(values, meta, data, factory, 'full', false, true)
  const entity = Object.create(meta.prototype as object) as Record<string, unknown>
  // Own data properties: assigning would run the class's tracking setters (the ORM's
  // `ensurePropagation`), which are the registration's work.
  for (const name of Object.keys(values))
    Object.defineProperty(entity, name, {
      value: values[name],
      writable: true,
      enumerable: true,
      configurable: true,
    })
  // MikroORM reaches an entity's state through `__helper` (a getter on the prototype): before it
  // does, the request's EntityManager adopts the model.
  Object.defineProperty(entity, '__helper', {
    get(this: Record<string, unknown>) {
      adopt(ctx)
      return this.__helper
    },
    enumerable: false,
    configurable: true,
  })
  const models = (ctx.state.boundModels ??= new Map())
  models.set(keyOf(meta.className, key), { entity, data })
  return entity
}

/** Registers the request's bound models with its EntityManager, as `em.findOne()` registers a row. */
export function adoptBoundModels(ctx: RequestContext, em: EntityManager): void {
  const models = ctx.state.boundModels
  if (models === undefined) return
  ctx.state.boundModels = undefined
  const uow = em.getUnitOfWork(false)
  for (const { entity } of models.values()) delete (entity as { __helper?: unknown }).__helper
  for (const { entity, data } of models.values())
    uow.register(entity, data, { refresh: true, loaded: true })
}
