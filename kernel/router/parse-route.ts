import { anchorPattern, canonicalQuery, paramNames, parsePath, type PathToken } from './path.js'
import type { Route, RouteDefinition } from './route.js'
import { routerErrors } from './router-error.js'

/** A declared route parsed: the frozen route and what the matching structures need to place it. */
export interface ParsedRoute {
  readonly route: Route
  readonly tokens: readonly PathToken[]
  /** Anchored constraint per placeholder name, for the placeholders that have one. */
  readonly constraints: ReadonlyMap<string, RegExp>
  /** Canonical query form for a query-string route, else undefined. */
  readonly queryKey: string | undefined
}

/** `GET|HEAD /products/{id}` plus where it came from, for error messages. */
export function describeRoute(def: {
  readonly methods: readonly string[]
  readonly path: string
  readonly query: string | undefined
  readonly origin?: string | undefined
}): string {
  const query = def.query === undefined ? '' : `?${def.query}`
  const origin = def.origin === undefined ? '' : ` (${def.origin})`
  return `${def.methods.join('|')} /${def.path}${query}${origin}`
}

/**
 * Turns a declaration into a frozen {@link Route}: applies group middleware, exclusions,
 * permissions and name prefixes, and resolves placeholder constraints against global patterns.
 */
export function parseRoute(
  def: RouteDefinition,
  patterns: ReadonlyMap<string, RegExp>,
): ParsedRoute {
  const tokens = parsePath(def.path)
  const names = paramNames(tokens)
  const known = new Set(names)
  for (const param of [...def.wheres.keys(), ...def.bindings.keys()]) {
    if (!known.has(param)) {
      throw routerErrors.error('FW_ERR_ROUTER_UNKNOWN_PARAM', {
        route: describeRoute(def),
        param,
        names,
      })
    }
  }

  const constraints = new Map<string, RegExp>()
  const wheres: Record<string, RegExp> = {}
  for (const name of names) {
    const own = def.wheres.get(name)
    const re = own === undefined ? patterns.get(name) : anchorPattern(own, name)
    if (re === undefined) continue
    constraints.set(name, re)
    wheres[name] = re
  }
  const bindings: Record<string, string> = {}
  for (const [param, model] of def.bindings) bindings[param] = model

  const route: Route = Object.freeze({
    methods: Object.freeze([...def.methods]),
    path: def.path,
    query: def.query,
    handler: def.handler,
    name: def.name === undefined ? undefined : def.groups.map((g) => g.name).join('') + def.name,
    middleware: Object.freeze(effectiveMiddleware(def)),
    permissions: Object.freeze(
      unique([...def.groups.flatMap((g) => g.permissions), ...def.permissions]),
    ),
    wheres: Object.freeze(wheres),
    bindings: Object.freeze(bindings),
    classic: def.classic,
    schema: def.schema,
    json: def.json || def.groups.some((g) => g.json),
  })
  return {
    route,
    tokens,
    constraints,
    queryKey: def.query === undefined ? undefined : canonicalQuery(def.query),
  }
}

/** Outer group → inner group → route's own, minus every exclusion on the way, first occurrence kept. */
export function effectiveMiddleware(
  def: Pick<RouteDefinition, 'groups' | 'middleware' | 'withoutMiddleware'>,
): string[] {
  const excluded = new Set([
    ...def.groups.flatMap((g) => g.withoutMiddleware),
    ...def.withoutMiddleware,
  ])
  const all = [...def.groups.flatMap((g) => g.middleware), ...def.middleware]
  return unique(all).filter((name) => !excluded.has(name))
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}
