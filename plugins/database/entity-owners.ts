import type { BootTiming } from 'fw'
import { classNameOf, type EntityDeclaration } from './deferred-entity.js'

/** An entity the app knows, and who declared it (`kernel.plugin('database').entities()`). */
export interface DeclaredEntity {
  /** The entity's class name: MikroORM allows one entity of a name. */
  readonly className: string
  /** The plugin whose setup added it (`addEntities`); undefined for the app's own. */
  readonly plugin: string | undefined
}

/**
 * Who declared each entity: the `entities` option's are the app's; one added by `addEntities`
 * during a plugin's setup is that plugin's, the one the boot timeline holds at the place it was
 * added at once that setup is over (test/plugins/database/extend.test.ts "entities()").
 */
export class EntityOwners {
  readonly #own: readonly EntityDeclaration[]
  readonly #timeline: readonly BootTiming[]
  readonly #added: { readonly entity: EntityDeclaration; readonly place: number }[] = []

  constructor(own: readonly EntityDeclaration[], timeline: readonly BootTiming[]) {
    this.#own = own
    this.#timeline = timeline
  }

  /** Records entities added at `place` (the boot timeline's length then; past it: the app). */
  add(entities: readonly EntityDeclaration[], place: number): void {
    for (const entity of entities) this.#added.push({ entity, place })
  }

  list(): DeclaredEntity[] {
    return [
      ...this.#own.map((entity) => ({ className: classNameOf(entity), plugin: undefined })),
      ...this.#added.map(({ entity, place }) => ({
        className: classNameOf(entity),
        plugin: this.#timeline[place]?.name,
      })),
    ]
  }
}
