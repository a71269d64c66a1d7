import { defineErrors, FwError, type CodesOf } from '../errors.js'

/**
 * A mistake in route declarations or a URL request the router cannot satisfy. Matching a request
 * never throws one: a path that matches nothing is simply not found.
 *
 * @example
 * try { router.url('users.show') } catch (e) { if (e instanceof RouterError) console.log(e.code) }
 */
export class RouterError extends FwError {
  declare readonly code: RouterErrorCode

  constructor(code: RouterErrorCode, message: string) {
    super(code, message)
    this.name = 'RouterError'
  }
}

const one = (list: readonly string[]): string => list.join(', ')

const definitions = {
  FW_ERR_ROUTER_UNKNOWN_METHOD: {
    when: 'At declaration: `match()` got a verb outside `GET HEAD POST PUT PATCH DELETE OPTIONS`, or no verb; `@route({ methods })` likewise.',
    fix: 'Use those verbs (any case).',
    message: ({
      path,
      method,
      known,
    }: {
      path: string
      method?: string
      known: readonly string[]
    }) =>
      method === undefined
        ? `No HTTP method given for '${path}'. Use one or more of: ${one(known)}.`
        : `Unknown HTTP method '${method}' in the declaration of '${path}'. Use one of: ${one(known)}.`,
  },
  FW_ERR_ROUTER_INVALID_PATH: {
    when: 'At declaration: a placeholder shares a segment with text (`files/{name}.json`) or is malformed; a placeholder name is used twice or is `__proto__`, `constructor` or `prototype`; an optional placeholder (`{id?}`) is not the last segment; a classic controller name is empty or holds `/` or `?`; a claimed path (`router.claim()`) does not start with `/` or has a `*` before its end.',
    fix: 'A placeholder fills a whole segment (`files/{name}`); one name per placeholder; only the last may be optional. A claim is `/login`, `/account/*` or `/health*`.',
    message: (
      a: { path: string; problem: string } | { classic: string } | { claim: string; owner: string },
    ) =>
      'claim' in a
        ? `Path '${a.claim}' claimed by '${a.owner}' must start with '/' and may end with '*' only: '/login', '/account/*' or '/health*'.`
        : 'classic' in a
          ? `Classic controller name '${a.classic}' must be one non-empty path segment (no '/' or '?'), as in classic('shop', ShopController).`
          : `Route path '${a.path}': ${a.problem}.`,
  },
  FW_ERR_ROUTER_INVALID_PATTERN: {
    when: '`pattern(name, …)` (at declaration) with a name that is not letters, digits and `_`; a constraint (`where()`, at compile) that is not a valid regular expression.',
    fix: 'Fix the regular expression or the name.',
    message: (a: { name: string } | { placeholder: string; reason: string }) =>
      'reason' in a
        ? `The constraint for '{${a.placeholder}}' is not a valid regular expression (${a.reason}). Fix the pattern passed to where() or pattern().`
        : `pattern('${a.name}', …): '${a.name}' is not a placeholder name; use letters, digits and '_'.`,
  },
  FW_ERR_ROUTER_UNKNOWN_PARAM: {
    when: 'At compile: `where()` or `bind()` names a placeholder the path does not have.',
    fix: 'Use a placeholder of the path; the message lists them.',
    message: ({
      route,
      param,
      names,
    }: {
      route: string
      param: string
      names: readonly string[]
    }) =>
      `Route ${route} constrains or binds '{${param}}', but its path has no such placeholder. Use one of: ${names.length === 0 ? '(none)' : one(names)}.`,
  },
  FW_ERR_ROUTER_DUPLICATE_NAME: {
    when: 'At compile: two routes end up with the same full name (group name prefixes included).',
    fix: 'Rename one with `.name()`, or with `names()` on a resource.',
    message: ({ name, first, second }: { name: string; first: string; second: string }) =>
      `Route name '${name}' is used by ${first} and by ${second}. Rename one of them with .name().`,
  },
  FW_ERR_ROUTER_DUPLICATE_ROUTE: {
    when: 'At compile: one method is declared twice for the same path and query form. Placeholder names do not matter: `users/{id}` and `users/{user}` are the same path, unless their constraints differ.',
    fix: 'Remove one declaration, or constrain one with `where()`.',
    message: ({ method, path, first }: { method: string; path: string; first: string }) =>
      `${method} /${path} is declared twice (the first: ${first}). Remove one of the declarations or give them different paths.`,
  },
  FW_ERR_ROUTER_UNKNOWN_NAME: {
    when: '`url()`: no route has that name; the message lists some that exist.',
    fix: "Name the route, or fix the name (include the group's name prefix).",
    message: ({ name, known }: { name: string; known: readonly string[] }) =>
      `No route is named '${name}'. Name one with .name('${name}')${known.length === 0 ? '' : `, or use one of: ${one(known.slice(0, 20))}`}.`,
  },
  FW_ERR_ROUTER_MISSING_PARAM: {
    when: "`url()`: a required placeholder got no value (or `''`).",
    fix: "Pass it: `url('users.show', { id: 5 })`.",
    message: ({ name, route, param }: { name: string; route: string; param: string }) =>
      `Route '${name}' (${route}) needs a value for '{${param}}'. Pass it: url('${name}', { ${param}: … }).`,
  },
  FW_ERR_ROUTER_MISSING_ACTION: {
    when: 'At compile: `resource()` with a controller class that lacks the method of an action it keeps (`create`, …).',
    fix: "Add the method, or drop the route with `.except('create')` / `.only(…)`.",
    message: (a: { route: string; name: string; action: string; controller: string }) =>
      `Route ${a.route} (${a.name}) needs a '${a.action}' method on ${a.controller}, which has none. Add the method, or leave the route out with .except('${a.action}').`,
  },
  FW_ERR_ROUTER_UNKNOWN_ACTION: {
    when: 'At declaration: `only()`, `except()` or `names({…})` got a name that is not one of `index create store show edit update destroy`.',
    fix: 'Use the seven action names.',
    message: ({ action, known }: { action: string; known: readonly string[] }) =>
      `'${action}' is not a resource action. Use one of: ${one(known)}.`,
  },
  FW_ERR_ROUTER_INVALID_DECORATOR: {
    when: 'At class definition: `@route()` without a string `path`; a route decorator on a static, private or symbol-named method; `@controller()` on something other than a class.',
    fix: 'Decorate public instance methods; give every `@route` a path.',
    message: (a: { problem: 'no-path' | 'not-a-class' } | { where: string }) =>
      'where' in a
        ? `${a.where}: route decorators go on public instance methods with a string name; move it to such a method.`
        : a.problem === 'no-path'
          ? `@route() needs a string 'path', as in @route({ path: 'shop/{id}' }).`
          : '@controller() decorates classes only.',
  },
  FW_ERR_ROUTER_INVALID_SCHEMA: {
    when: "Before listening (or on the route's first in-process request): a route's body schema is not a schema the validator accepts (an unknown keyword or format, a wrong type); the message gives the validator's reason.",
    fix: "Fix the schema: JSON Schema draft-07 keywords, plus OpenAPI's `nullable` and `example`.",
    message: ({ route, reason }: { route: string; reason: string }) =>
      `The body schema of route '${route}' is not valid: ${reason}. Fix the schema given to .schema().`,
  },
  FW_ERR_ROUTER_NO_ROUTES: {
    when: 'At declaration: `router.controller(Class)` for a class with no decorated method.',
    fix: 'Decorate its actions, or register it with `router.classic()` if it is a classic controller.',
    message: ({ controller }: { controller: string }) =>
      `${controller} has no methods decorated with @route, @get, @post…; decorate its actions, or register it with router.classic() if it is a classic controller.`,
  },
} as const

/** The stable codes a {@link RouterError} carries; each names what went wrong in a declaration. */
export type RouterErrorCode = keyof typeof definitions

/** The router's codes, carried by {@link RouterError}. */
export const routerErrors = defineErrors(
  {
    owner: 'router',
    title: 'Router',
    intro:
      'Carried by `RouterError` (a subclass of `FwError`, exported from `fw`; its `code` is a `RouterErrorCode`). Most are thrown where the route is declared, so the stack points at the mistake; the rest when the routes are compiled, which `kernel.boot()` does (and `router.find()`, `router.url()` or `router.routes()` on a router used alone). Matching a request never throws: a path that matches nothing is simply not found.',
  },
  definitions,
  RouterError,
)

declare module '../errors.js' {
  interface ErrorCodes extends CodesOf<typeof routerErrors> {}
}
