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
 * The request a detached model waits for, until its EntityManager adopts the model: a property of
 * the model under a symbol (invisible to `Object.keys`, JSON and `toData`), not a `WeakMap` entry.
 * A WeakMap's table lives in the old generation, and V8's scavenges keep the values of its entries
 * alive until a full collection: every request that bound a model (its context, events, reply)
 * was promoted so, about 5 KB per request on the products route.
 */
const WAITING = Symbol('fw.waitingRequest')

interface Detached {
  [WAITING]?: RequestContext | undefined
}

/** What a detached model needs from the plugin: how its request's EntityManager adopts it. */
type Adopt = (ctx: RequestContext) => void

/**
 * The prototype detached models of an entity class are made from, one per class: the class's
 * prototype, under a layer that (1) shadows each property's change-tracking setter (MikroORM puts
 * one on the class's prototype; it needs the entity's ORM state) with a writable data property, so
 * that a model's values are plain assignments, own data properties in one hidden class, and (2)
 * answers `__helper` (how MikroORM reaches an entity's state: `wrap()`, `toJSON`, `em.assign`) by
 * having the request's EntityManager adopt the model first, then handing over to the class's own.
 */
function detachedPrototype(meta: EntityMetadata, adopt: Adopt): object {
  const classProto = meta.prototype as object
  const helper = findGetter(classProto, '__helper')
  const layer: PropertyDescriptorMap = {
    __helper: {
      get(this: { __helper: unknown }) {
        const ctx = (this as Detached)[WAITING]
        if (ctx === undefined) return helper.call(this)
        // Adopting registers the model, which defines its own `__helper`: that one is the answer.
        adopt(ctx)
        return this.__helper
      },
      configurable: true,
    },
  }
  for (const prop of meta.props)
    layer[prop.name] = { value: undefined, writable: true, enumerable: false, configurable: true }
  return Object.create(classProto, layer) as object
}

/** The getter `name` resolves to on `proto`'s chain (MikroORM's `__helper`). */
function findGetter(proto: object, name: string): () => unknown {
  for (let p: object | null = proto; p !== null; p = Object.getPrototypeOf(p) as object | null) {
    const get = Object.getOwnPropertyDescriptor(p, name)?.get
    if (get !== undefined) return get
  }
  throw new Error(`no ${name} getter on the entity's prototype chain`)
}

/** The detached prototypes, by ORM (its `adopt`) and entity. */
const prototypes = new WeakMap<Adopt, Map<EntityMetadata, object>>()

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
  adopt: Adopt,
): object {
  let ofOrm = prototypes.get(adopt)
  if (ofOrm === undefined) prototypes.set(adopt, (ofOrm = new Map()))
  let proto = ofOrm.get(meta)
  if (proto === undefined) ofOrm.set(meta, (proto = detachedPrototype(meta, adopt)))
  const entity = Object.create(proto) as object
  // Scalars only (see isDetachable): the hydrator assigns converted values and normalises `data`
  // into the snapshot the unit of work compares against; the factory is never reached.
  const factory = (meta.prototype as { __factory: EntityFactory }).__factory
  hydrator.hydrate(entity, meta, data, factory, 'full', false, true)
  ;(entity as Detached)[WAITING] = ctx
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
  for (const { entity } of models.values()) (entity as Detached)[WAITING] = undefined
  for (const { entity, data } of models.values())
    uow.register(entity, data, { refresh: true, loaded: true })
}
