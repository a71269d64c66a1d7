import { HTTP_METHODS, type ControllerClass } from '../types.js'
import { effectiveMiddleware } from './parse-route.js'
import { hasAction } from './controller-action.js'
import { decomposeLegacy, decomposeLegacyPath, type LegacyRequest } from './legacy.js'
import type { GroupFrame, Route, RouteMatch } from './route.js'
import { routerErrors } from './router-error.js'

interface ClassicController {
  readonly name: string
  readonly controller: ControllerClass
  readonly groups: readonly GroupFrame[]
  /** One synthetic route per action reached so far (bounded by the class's methods). */
  readonly routes: Map<string, Route>
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

/**
 * A set of classic controllers apart from the router's own (`router.classicSet()`): matched only
 * where its owner asks, e.g. an area that looks up its own controllers before the site's.
 */
export interface ClassicSet {
  /** Registers `controller` under `name` (compared case-insensitively), replacing an earlier one. */
  register(name: string, controller: ControllerClass): void
  /**
   * As the router's own classic lookup: `?r=` first, else the path's first segment. `rewritten`:
   * the path to decompose instead of `path` (the owner's routing path), `path` then being reported
   * as `originalRequestNoChange`.
   */
  match(
    path: string,
    querystring: string,
    get: Record<string, unknown>,
    rewritten?: string,
  ): RouteMatch | undefined
  /** The registered names, and each controller's actions (its methods), for listings. */
  actions(): ReadonlyArray<{ name: string; controller: ControllerClass; actions: string[] }>
}

/** The public methods of a controller class (and of its ancestors), in declaration order. */
export function actionsOf(controller: ControllerClass): string[] {
  const out = new Set<string>()
  let proto: unknown = controller.prototype
  while (proto !== null && proto !== undefined && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto))
      if (!name.startsWith('_') && hasAction(controller, name)) out.add(name)
    proto = Object.getPrototypeOf(proto)
  }
  return [...out]
}

/**
 * Classic controllers reachable by legacy decomposition (`?r=shop/view/5` or `/shop/view/5`).
 * Names compare case-insensitively; a controller declared inside a group takes the group's
 * middleware and permissions (not its prefix).
 */
export class ClassicRegistry {
  readonly #byName = new Map<string, ClassicController>()

  /** Registers `controller` under `name`, replacing an earlier registration of that name. */
  register(name: string, controller: ControllerClass, groups: readonly GroupFrame[]): void {
    if (name === '' || name.includes('/') || name.includes('?')) {
      throw routerErrors.error('FW_ERR_ROUTER_INVALID_PATH', { classic: name })
    }
    this.#byName.set(name.toLowerCase(), { name, controller, groups, routes: new Map() })
  }

  /**
   * Decomposes `r` from the query string when present, otherwise the path when its first segment
   * names a registered controller; matches only an existing action (`index` when none is named).
   */
  match(
    path: string,
    querystring: string,
    get: Record<string, unknown>,
    rewritten?: string,
  ): RouteMatch | undefined {
    if (this.#byName.size === 0) return undefined
    const q = path.indexOf('?')
    if (q !== -1) path = path.slice(0, q)
    const r = querystring === '' ? null : new URLSearchParams(querystring).get('r')
    let legacy: LegacyRequest | undefined
    if (r !== null && r !== '') legacy = decomposeLegacy(r, get, rewritten)
    else {
      const source = (rewritten ?? path).replace(/^\/+/, '')
      const slash = source.indexOf('/')
      const first = slash === -1 ? source : source.slice(0, slash)
      if (!this.#byName.has(first.toLowerCase())) return undefined
      legacy = decomposeLegacyPath(path, get, rewritten)
    }
    if (legacy === undefined) return undefined
    const entry = this.#byName.get(legacy.controller.toLowerCase())
    if (entry === undefined) return undefined
    const action = legacy.action === '' ? 'index' : legacy.action
    if (!hasAction(entry.controller, action)) return undefined
    return { route: this.#route(entry, action), params: NO_PARAMS, legacy }
  }

  /** The registered controllers and their actions. */
  actions(): ReadonlyArray<{ name: string; controller: ControllerClass; actions: string[] }> {
    return [...this.#byName.values()].map(({ name, controller }) => ({
      name,
      controller,
      actions: actionsOf(controller),
    }))
  }

  #route(entry: ClassicController, action: string): Route {
    let route = entry.routes.get(action)
    if (route === undefined) {
      route = Object.freeze({
        methods: HTTP_METHODS,
        path: `${entry.name}/${action}`,
        query: undefined,
        handler: Object.freeze([entry.controller, action] as const),
        name: undefined,
        middleware: Object.freeze(
          effectiveMiddleware({ groups: entry.groups, middleware: [], withoutMiddleware: [] }),
        ),
        permissions: Object.freeze([...new Set(entry.groups.flatMap((g) => g.permissions))]),
        wheres: Object.freeze({}),
        bindings: Object.freeze({}),
        classic: true,
        schema: undefined,
        json: entry.groups.some((g) => g.json),
      })
      entry.routes.set(action, route)
    }
    return route
  }
}
