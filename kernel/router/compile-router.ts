import { HTTP_METHODS, type HttpMethod } from '../types.js'
import { parseRoute, describeRoute, type ParsedRoute } from './parse-route.js'
import type { MethodTree } from './method-tree.js'
import { joinPaths } from './path.js'
import { ResourceDeclaration } from './resource.js'
import type { Route, RouteDefinition } from './route.js'
import { routerErrors } from './router-error.js'
import { RouteTree } from './tree.js'

/** Everything a router answers from, built in one go by {@link compileRouter}. */
export interface CompiledRouter {
  readonly tree: RouteTree
  /** The GET tree, the most asked for, without a Map lookup; undefined when no route answers GET. */
  readonly get: MethodTree | undefined
  readonly byName: ReadonlyMap<string, ParsedRoute>
  readonly routes: readonly Route[]
  readonly fallback: Route | undefined
  /** The prefixes (no slashes) of the groups declared with `json: true`, their routes' way. */
  readonly jsonPrefixes: readonly string[]
}

const METHODS = new Map<string, HttpMethod>(HTTP_METHODS.map((m) => [m, m]))

/**
 * Validates every declaration (placeholders, constraints, resource actions, duplicate names and
 * routes) and builds the matching tree and the name index. Throws a RouterError on the first
 * mistake; nothing is half-built.
 */
export function compileRouter(
  declarations: readonly (RouteDefinition | ResourceDeclaration)[],
  patterns: ReadonlyMap<string, RegExp>,
  fallback: RouteDefinition | undefined,
): CompiledRouter {
  const tree = new RouteTree()
  const byName = new Map<string, ParsedRoute>()
  const routes: Route[] = []
  const jsonPrefixes = new Set<string>()
  for (const declaration of declarations) {
    const defs =
      declaration instanceof ResourceDeclaration ? declaration.definitions() : [declaration]
    for (const def of defs) {
      let prefix = ''
      for (const group of def.groups) {
        prefix = joinPaths(prefix, group.prefix)
        if (group.json && prefix !== '') jsonPrefixes.add(prefix)
      }
      const parsed = parseRoute(def, patterns)
      const { name } = parsed.route
      const taken = name === undefined ? undefined : byName.get(name)
      if (taken !== undefined) {
        throw routerErrors.error('FW_ERR_ROUTER_DUPLICATE_NAME', {
          name: name!,
          first: describeRoute(taken.route),
          second: describeRoute(def),
        })
      }
      if (name !== undefined) byName.set(name, parsed)
      tree.insert(parsed)
      routes.push(parsed.route)
    }
  }
  tree.finish()
  return {
    tree,
    get: tree.method('GET'),
    byName,
    routes: Object.freeze(routes),
    fallback: fallback === undefined ? undefined : parseRoute(fallback, patterns).route,
    jsonPrefixes: [...jsonPrefixes],
  }
}

/** Upper-cases and checks declared methods; throws FW_ERR_ROUTER_UNKNOWN_METHOD naming the bad verb. */
export function declaredMethods(methods: readonly string[], path: string): HttpMethod[] {
  const out = new Set<HttpMethod>()
  for (const method of methods) {
    const verb = METHODS.get(String(method).toUpperCase())
    if (verb === undefined) {
      throw routerErrors.error('FW_ERR_ROUTER_UNKNOWN_METHOD', {
        path,
        method,
        known: HTTP_METHODS,
      })
    }
    out.add(verb)
  }
  if (out.size === 0) {
    throw routerErrors.error('FW_ERR_ROUTER_UNKNOWN_METHOD', { path, known: HTTP_METHODS })
  }
  return [...out]
}
