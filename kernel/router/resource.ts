import type { ControllerClass, HandlerRef, HttpMethod } from '../types.js'
import { describeRoute } from './parse-route.js'
import { hasAction } from './controller-action.js'
import { joinPaths } from './path.js'
import type { GroupFrame, RouteDefinition, RouteSchema } from './route.js'
import { routerErrors } from './router-error.js'

/** The seven actions of a resource, in the order their routes are declared. */
export const RESOURCE_ACTIONS = [
  'index',
  'create',
  'store',
  'show',
  'edit',
  'update',
  'destroy',
] as const
/** One of the seven resource actions. */
export type ResourceAction = (typeof RESOURCE_ACTIONS)[number]

const SHAPES: Readonly<Record<ResourceAction, { methods: readonly HttpMethod[]; suffix: string }>> =
  {
    index: { methods: ['GET'], suffix: '' },
    create: { methods: ['GET'], suffix: 'create' },
    store: { methods: ['POST'], suffix: '' },
    show: { methods: ['GET'], suffix: '{id}' },
    edit: { methods: ['GET'], suffix: '{id}/edit' },
    update: { methods: ['PATCH'], suffix: '{id}' },
    destroy: { methods: ['DELETE'], suffix: '{id}' },
  }

/** A `resource()` call as recorded by the router; expanded into route definitions at compile. */
export class ResourceDeclaration {
  readonly actions = new Set<ResourceAction>(RESOURCE_ACTIONS)
  readonly names: Partial<Record<ResourceAction, string>> = {}
  readonly middleware: string[] = []
  readonly withoutMiddleware: string[] = []
  readonly permissions: string[] = []
  readonly schemas: Partial<Record<ResourceAction, RouteSchema>> = {}
  /** The model `{id}` is bound to, for the actions that have it. */
  model: string | undefined
  baseName: string

  /**
   * @param name the resource name as declared (`photos`, `admin/photos`)
   * @param prefix the enclosing groups' path prefix
   * @param controller a class, or a string class name with the group namespace already applied
   */
  constructor(
    readonly name: string,
    readonly prefix: string,
    readonly controller: ControllerClass | string,
    readonly groups: readonly GroupFrame[],
  ) {
    this.baseName = joinPaths('', name).replaceAll('/', '.')
  }

  /** One definition per remaining action; throws when a class controller lacks an action's method. */
  definitions(): RouteDefinition[] {
    const base = joinPaths(this.prefix, this.name)
    const controllerName =
      typeof this.controller === 'string' ? this.controller : this.controller.name
    return RESOURCE_ACTIONS.filter((action) => this.actions.has(action)).map((action) => {
      const shape = SHAPES[action]
      const def: RouteDefinition = {
        methods: shape.methods,
        path: joinPaths(base, shape.suffix),
        query: undefined,
        handler: this.#handler(action),
        groups: this.groups,
        name: this.names[action] ?? `${this.baseName}.${action}`,
        wheres: new Map(),
        middleware: [...this.middleware],
        withoutMiddleware: [...this.withoutMiddleware],
        permissions: [...this.permissions],
        bindings: new Map(
          this.model !== undefined && shape.suffix.startsWith('{id}') ? [['id', this.model]] : [],
        ),
        classic: false,
        schema: this.schemas[action],
        json: false,
        origin: `resource '${this.name}'`,
      }
      if (typeof this.controller !== 'string' && !hasAction(this.controller, action)) {
        throw routerErrors.error('FW_ERR_ROUTER_MISSING_ACTION', {
          route: describeRoute(def),
          name: def.name ?? '',
          action,
          controller: controllerName,
        })
      }
      return def
    })
  }

  #handler(action: ResourceAction): HandlerRef {
    return typeof this.controller === 'string'
      ? `${this.controller}@${action}`
      : [this.controller, action]
  }
}

/**
 * Restricts or renames the routes of a `resource()` declaration; every call returns the builder.
 *
 * @example
 * router.resource('photos', PhotoController).except('create', 'edit').names('pictures')
 */
export class ResourceBuilder {
  readonly #declaration: ResourceDeclaration
  readonly #changed: () => void

  /** @internal Created by `router.resource()`. */
  constructor(declaration: ResourceDeclaration, changed: () => void) {
    this.#declaration = declaration
    this.#changed = changed
  }

  /** Keeps only the given actions. */
  only(...actions: ResourceAction[]): this {
    const keep = new Set(checked(actions))
    for (const action of RESOURCE_ACTIONS)
      if (!keep.has(action)) this.#declaration.actions.delete(action)
    return this.#touch()
  }

  /** Leaves out the given actions. */
  except(...actions: ResourceAction[]): this {
    for (const action of checked(actions)) this.#declaration.actions.delete(action)
    return this.#touch()
  }

  /** Renames routes one by one (`{ index: 'gallery' }`) or replaces the name prefix (`'pictures'`). */
  names(names: Partial<Record<ResourceAction, string>> | string): this {
    if (typeof names === 'string') this.#declaration.baseName = names
    else
      for (const action of checked(Object.keys(names)))
        this.#declaration.names[action] = names[action] as string
    return this.#touch()
  }

  /** Adds named middleware to every route of the resource. */
  middleware(...names: string[]): this {
    this.#declaration.middleware.push(...names)
    return this.#touch()
  }

  /** Removes named middleware (including group middleware) from every route of the resource. */
  withoutMiddleware(...names: string[]): this {
    this.#declaration.withoutMiddleware.push(...names)
    return this.#touch()
  }

  /** Adds permissions to every route of the resource. */
  permissions(...permissions: string[]): this {
    this.#declaration.permissions.push(...permissions)
    return this.#touch()
  }

  /**
   * Binds `{id}` to a model (implicit model binding) on the routes that have it: `show`, `edit`,
   * `update`, `destroy` get the loaded record in `ctx.models.id`; a missing one is a 404.
   */
  bind(model: string): this {
    this.#declaration.model = model
    return this.#touch()
  }

  /** Declares the body and responses of actions (`{ store: { body: … } }`): see `RouteBuilder.schema`. */
  schemas(schemas: Partial<Record<ResourceAction, RouteSchema>>): this {
    for (const action of checked(Object.keys(schemas)))
      this.#declaration.schemas[action] = schemas[action]!
    return this.#touch()
  }

  #touch(): this {
    this.#changed()
    return this
  }
}

function checked(actions: readonly string[]): ResourceAction[] {
  for (const action of actions) {
    if (!(RESOURCE_ACTIONS as readonly string[]).includes(action)) {
      throw routerErrors.error('FW_ERR_ROUTER_UNKNOWN_ACTION', { action, known: RESOURCE_ACTIONS })
    }
  }
  return actions as ResourceAction[]
}
