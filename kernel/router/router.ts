import { redirect as redirectReply, view as viewReply } from '../reply.js'
import { HTTP_METHODS, type ControllerClass, type HandlerRef, type HttpMethod } from '../types.js'
import { ClaimedPaths, type ClaimedPath, type PathClaim } from './claimed-paths.js'
import { ClassicRegistry, type ClassicSet } from './classic.js'
import { compileRouter, declaredMethods, type CompiledRouter } from './compile-router.js'
import { controllerRoutes } from './decorators.js'
import { anchorPattern, joinPaths, parsePath, splitDeclaration, trimSlashes } from './path.js'
import { ResourceBuilder, ResourceDeclaration } from './resource.js'
import {
  RouteBuilder,
  type GroupFrame,
  type Route,
  type RouteDefinition,
  type RouteMatch,
} from './route.js'
import { routerErrors } from './router-error.js'
import { buildUrl, type UrlValues } from './url.js'

/** Options of `router.group()`; nested groups compose outer-first. */
export interface GroupOptions {
  /** Prepended to every path in the group. */
  readonly prefix?: string
  /** Placed before the middleware of the group's routes. */
  readonly middleware?: readonly string[]
  /** Removed from every route in the group, including middleware of outer groups. */
  readonly withoutMiddleware?: readonly string[]
  readonly permissions?: readonly string[]
  /** Prepended to route names as is: `{ name: 'admin.' }` + `.name('users')` → `admin.users`. */
  readonly name?: string
  /** Prepended (dot-joined) to the class part of string handlers: `Admin` + `'Users@index'` → `'Admin.Users@index'`. */
  readonly namespace?: string
  /**
   * The group answers JSON by default (an API): the kernel's own replies for its routes (a missing
   * bound model's 404, 405, 500) and for any path under its prefix that matches nothing (404) are
   * JSON unless `Accept` ranks `text/html` first. A group without a prefix claims only its routes.
   */
  readonly json?: boolean
}

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * fw's router: declarations (fluent, grouped, resources, decorated controllers, classic
 * controllers), compiled into a segment tree. Pure: it answers questions and never replies.
 *
 * @example
 * const router = new Router()
 * router.group({ prefix: 'api/v1', middleware: ['api'] }, (r) => r.get('products/{id}', show).name('products.show'))
 * router.find('GET', '/api/v1/products/5')?.params // { id: '5' }
 */
export class Router {
  readonly #declarations: (RouteDefinition | ResourceDeclaration)[] = []
  readonly #patterns = new Map<string, RegExp>()
  readonly #groups: GroupFrame[] = []
  readonly #classics = new ClassicRegistry()
  readonly #listed: Array<() => readonly Route[]> = []
  readonly #claimed = new ClaimedPaths()
  readonly #values: string[] = []
  #fallback: RouteDefinition | undefined
  #compiled: CompiledRouter | undefined
  readonly #changed = (): void => {
    this.#compiled = undefined
  }

  /** Declares a GET route (it also answers HEAD unless a HEAD route is declared for the path). */
  get(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['GET'], path, handler)
  }

  /** Declares a POST route. */
  post(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['POST'], path, handler)
  }

  /** Declares a PUT route. */
  put(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['PUT'], path, handler)
  }

  /** Declares a PATCH route. */
  patch(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['PATCH'], path, handler)
  }

  /** Declares a DELETE route. */
  delete(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['DELETE'], path, handler)
  }

  /** Declares an explicit HEAD route, which wins over the GET route of the same path. */
  head(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['HEAD'], path, handler)
  }

  /** Declares an OPTIONS route. */
  options(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(['OPTIONS'], path, handler)
  }

  /** Declares a route for every method of `HTTP_METHODS`. */
  any(path: string, handler: HandlerRef): RouteBuilder {
    return this.match(HTTP_METHODS, path, handler)
  }

  /** Declares a route for a list of methods (any case); an unknown verb throws FW_ERR_ROUTER_UNKNOWN_METHOD. */
  match(methods: readonly string[], path: string, handler: HandlerRef): RouteBuilder {
    return new RouteBuilder(this.#declare(methods, path, handler, undefined), this.#changed)
  }

  /** Declares routes inside a group: prefix, middleware, permissions, name prefix, namespace. */
  group(options: GroupOptions, define: (router: Router) => void): void {
    this.#groups.push({
      prefix: trimSlashes(options.prefix ?? ''),
      middleware: [...(options.middleware ?? [])],
      withoutMiddleware: [...(options.withoutMiddleware ?? [])],
      permissions: [...(options.permissions ?? [])],
      name: options.name ?? '',
      namespace: options.namespace ?? '',
      json: options.json === true,
    })
    try {
      define(this)
    } finally {
      this.#groups.pop()
    }
  }

  /** Constrains every placeholder called `name`, in every route; a route's own `where()` overrides it. */
  pattern(name: string, regex: RegExp | string): void {
    if (!PLACEHOLDER_NAME.test(name)) {
      throw routerErrors.error('FW_ERR_ROUTER_INVALID_PATTERN', { name })
    }
    this.#patterns.set(name, anchorPattern(regex, name))
    this.#changed()
  }

  /** Declares the seven resource routes (`index` … `destroy`), named `<name>.<action>`. */
  resource(name: string, controller: ControllerClass | string): ResourceBuilder {
    const target = typeof controller === 'string' ? this.#namespaced(controller) : controller
    const declaration = new ResourceDeclaration(name, this.#prefix(), target, [...this.#groups])
    this.#declarations.push(declaration)
    this.#changed()
    return new ResourceBuilder(declaration, this.#changed)
  }

  /** Sets the route the kernel runs when nothing matches (any method); it is not part of matching. */
  fallback(handler: HandlerRef): void {
    this.#fallback = this.#definition(HTTP_METHODS, '*', handler, 'fallback')
    this.#changed()
  }

  /** The compiled fallback route, if one was set. */
  get fallbackRoute(): Route | undefined {
    return this.#compile().fallback
  }

  /** Answers every method on `from` with a 302 redirect to `to`. */
  redirect(from: string, to: string): RouteBuilder {
    return this.any(from, () => redirectReply(to, 302))
  }

  /** Answers every method on `from` with a 301 redirect to `to`. */
  redirectPermanent(from: string, to: string): RouteBuilder {
    return this.any(from, () => redirectReply(to, 301))
  }

  /** Answers GET (and HEAD) on `path` by rendering `template` with `data`. */
  view(path: string, template: string, data: Record<string, unknown> = {}): RouteBuilder {
    return this.get(path, () => viewReply(template, data))
  }

  /** Registers the routes declared with `@route`/`@get`… on each class, grouped by its `@controller` options. */
  controller(...classes: ControllerClass[]): void {
    for (const Class of classes) {
      const { options, actions } = controllerRoutes(Class)
      if (actions.length === 0) {
        throw routerErrors.error('FW_ERR_ROUTER_NO_ROUTES', { controller: Class.name })
      }
      const group = {
        prefix: options.prefix,
        middleware: options.middleware,
        permissions: options.permissions,
        name: options.name,
        json: options.json,
      }
      this.group(group, () => {
        for (const { method, options: declared } of actions) {
          const def = this.#declare(
            declared.methods ?? ['GET'],
            declared.path,
            [Class, method],
            `${Class.name}.${method}`,
          )
          def.name = declared.name
          def.middleware.push(...(declared.middleware ?? []))
          def.permissions.push(...(declared.permissions ?? []))
          def.schema = declared.schema
        }
      })
    }
  }

  /** Registers a classic controller reachable by legacy decomposition under `name`. */
  classic(name: string, controller: ControllerClass): void {
    this.#classics.register(name, controller, [...this.#groups])
  }

  /**
   * A set of classic controllers of its own, which the router never searches: its owner matches
   * it where it applies (an area's controllers, looked up before the site's inside the area).
   * A controller registered while a group is open takes the group's middleware, as `classic()`.
   */
  classicSet(): ClassicSet {
    const registry = new ClassicRegistry()
    return {
      register: (name, controller) => registry.register(name, controller, [...this.#groups]),
      match: (path, querystring, get, rewritten) =>
        registry.match(path, querystring, get, rewritten),
      actions: () => registry.actions(),
    }
  }

  /**
   * Adds rows to `fw route:list` for routes answered outside the declared table (a plugin's own
   * routing: an area's controllers). `rows` runs when the list is asked for.
   */
  listRoutes(rows: () => readonly Route[]): void {
    this.#listed.push(rows)
  }

  /** The routes of {@link listRoutes}' providers, for `fw route:list`. */
  listedRoutes(): Route[] {
    return this.#listed.flatMap((rows) => rows())
  }

  /**
   * Claims paths at the site root for `owner` (docs/routing.md "Claimed paths"): a plugin that
   * routes the site under a prefix (the admin area) leaves them out. `/login` is that path,
   * `/account/*` it and every path under it, `/health*` every path starting so. Claim in `setup`.
   *
   * @example
   * kernel.router.claim('health', '/health*')
   */
  claim(owner: string, ...paths: PathClaim[]): void {
    this.#claimed.claim(owner, paths)
  }

  /** Every claim of {@link claim} (the kernel's `/_fw/*` and `/.well-known/*` first). */
  claims(): readonly ClaimedPath[] {
    return this.#claimed.list()
  }

  /** True when `path` falls under a claim of {@link claim}. */
  isClaimed(path: string): boolean {
    return this.#claimed.has(path)
  }

  /** Validates every declaration and builds the matching tree and name index; `find()` calls it when needed. */
  compile(): void {
    this.#compiled = undefined
    this.#compile()
  }

  /** The route answering `method` on `path`, with decoded placeholder values; undefined when none does. */
  find(method: string, path: string, querystring?: string): RouteMatch | undefined {
    const compiled = this.#compiled ?? this.#compile()
    const tree = method === 'GET' ? compiled.get : compiled.tree.method(method)
    if (tree === undefined) return undefined
    const values = this.#values
    const entry = tree.find(path, querystring, values)
    if (entry === undefined) return undefined
    return entry.match ?? entry.answer(values)
  }

  /** Every method declared for `path`, sorted, HEAD wherever GET is; `[]` when the path matches no route. */
  allowedMethodsFor(method: string, path: string, querystring?: string): string[] {
    const compiled = this.#compiled ?? this.#compile()
    const q = path.indexOf('?')
    const query = querystring ?? (q === -1 ? undefined : path.slice(q + 1))
    const out = new Set<string>()
    compiled.tree.allowed(q === -1 ? path : path.slice(0, q), query === '' ? undefined : query, out)
    if (out.size === 0) return []
    if (this.find(method, path, querystring) !== undefined) out.add(method.toUpperCase())
    return [...out].sort()
  }

  /**
   * True when a request that routing could not answer with `method` should still answer JSON by
   * default: a route of the path's other `methods` (the 405's `Allow`) says `json`, or the path
   * lies under the prefix of a group declared with `json: true`. Asked only on a miss.
   */
  answersJson(path: string, methods: readonly string[], querystring?: string): boolean {
    const compiled = this.#compiled ?? this.#compile()
    for (const method of methods) {
      if (this.find(method, path, querystring)?.route.json === true) return true
    }
    if (compiled.jsonPrefixes.length === 0) return false
    const q = path.indexOf('?')
    const trimmed = trimSlashes(q === -1 ? path : path.slice(0, q))
    return compiled.jsonPrefixes.some(
      (prefix) => trimmed === prefix || trimmed.startsWith(`${prefix}/`),
    )
  }

  /** The URL of a named route: `url('products.show', { id: 5 })` → `/products/5`; extra values become the query. */
  url(name: string, params?: UrlValues, query?: UrlValues): string {
    const parsed = (this.#compiled ?? this.#compile()).byName.get(name)
    if (parsed === undefined) {
      const known = [...(this.#compiled?.byName.keys() ?? [])]
      throw routerErrors.error('FW_ERR_ROUTER_UNKNOWN_NAME', { name, known })
    }
    return buildUrl(parsed, params, query)
  }

  /** Every declared route in declaration order, resources expanded (for `fw route:list`). */
  routes(): readonly Route[] {
    return (this.#compiled ?? this.#compile()).routes
  }

  /** Matches a classic controller action by the legacy `r` parameter or by the path (see `decomposeLegacy`). */
  matchLegacy(
    path: string,
    querystring: string,
    get: Record<string, unknown>,
    rewritten?: string,
  ): RouteMatch | undefined {
    return this.#classics.match(path, querystring, get, rewritten)
  }

  #compile(): CompiledRouter {
    return (this.#compiled ??= compileRouter(this.#declarations, this.#patterns, this.#fallback))
  }

  #declare(
    methods: readonly string[],
    path: string,
    handler: HandlerRef,
    origin: string | undefined,
  ): RouteDefinition {
    const def = this.#definition(declaredMethods(methods, path), path, handler, origin)
    this.#declarations.push(def)
    this.#changed()
    return def
  }

  #definition(
    methods: readonly HttpMethod[],
    raw: string,
    handler: HandlerRef,
    origin: string | undefined,
  ): RouteDefinition {
    const { path, query } = splitDeclaration(raw)
    const full = joinPaths(this.#prefix(), path)
    parsePath(full) // throws at the declaration, where the stack points at the mistake
    return {
      methods,
      path: full,
      query,
      handler: typeof handler === 'string' ? this.#namespaced(handler) : handler,
      groups: [...this.#groups],
      name: undefined,
      wheres: new Map(),
      middleware: [],
      withoutMiddleware: [],
      permissions: [],
      bindings: new Map(),
      classic: false,
      schema: undefined,
      json: false,
      origin,
    }
  }

  #prefix(): string {
    return this.#groups.reduce((prefix, g) => joinPaths(prefix, g.prefix), '')
  }

  #namespaced(handler: string): string {
    const namespace = this.#groups
      .map((g) => g.namespace)
      .filter((n) => n !== '')
      .join('.')
    return namespace === '' ? handler : `${namespace}.${handler}`
  }
}
