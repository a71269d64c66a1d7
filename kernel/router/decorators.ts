import type { ControllerClass } from '../types.js'
import type { RouteSchema } from './route.js'
import { routerErrors } from './router-error.js'

/** What `@route()` declares on a controller method. */
export interface RouteOptions {
  readonly path: string
  /** HTTP methods, any case; default `['GET']`. */
  readonly methods?: readonly string[]
  readonly name?: string
  readonly middleware?: readonly string[]
  readonly permissions?: readonly string[]
  /** The body and responses: validation and the API document (see `RouteBuilder.schema`). */
  readonly schema?: RouteSchema
}

/** What `@controller()` declares for every route of a class; all optional, defaults empty. */
export interface ControllerOptions {
  readonly prefix?: string
  readonly middleware?: readonly string[]
  readonly permissions?: readonly string[]
  /** Prepended to the names of the class's routes, as a group name is. */
  readonly name?: string
  /** The class's routes answer JSON by default, as a group's with `json: true`. */
  readonly json?: boolean
}

/** A standard (TC39) method decorator, applicable to any instance method. */
export type RouteDecorator = (
  method: (...args: never) => unknown,
  context: ClassMethodDecoratorContext,
) => void

/** A standard (TC39) class decorator for controller classes. */
export type ControllerDecorator = <Class extends ControllerClass>(
  value: Class,
  context: ClassDecoratorContext<Class>,
) => void

/** One decorated method of a controller, as `router.controller()` registers it. */
export interface DeclaredAction {
  readonly method: string
  readonly options: RouteOptions
}

// Node 20 has no Symbol.metadata, so declarations are kept beside the functions they describe.
const routesByMethod = new WeakMap<object, RouteOptions[]>()
const optionsByClass = new WeakMap<object, ControllerOptions>()

/**
 * Declares a route answered by the decorated method; the handler becomes `[Class, methodName]`.
 *
 * @example
 * class Shop { @route({ path: 'shop/{id}', methods: ['GET', 'HEAD'], name: 'shop.show' }) show() {} }
 */
export function route(declared: RouteOptions): RouteDecorator {
  if (typeof declared?.path !== 'string') {
    throw routerErrors.error('FW_ERR_ROUTER_INVALID_DECORATOR', { problem: 'no-path' })
  }
  return (method, context) => {
    const where = `@route({ path: '${declared.path}' }) on ${String(context.name)}`
    if (
      context.kind !== 'method' ||
      context.static ||
      context.private ||
      typeof context.name !== 'string'
    ) {
      throw routerErrors.error('FW_ERR_ROUTER_INVALID_DECORATOR', { where })
    }
    const list = routesByMethod.get(method) ?? []
    list.push(declared)
    routesByMethod.set(method, list)
  }
}

type Shorthand = (path: string, options?: Omit<RouteOptions, 'path' | 'methods'>) => RouteDecorator
const shorthand =
  (verb: string): Shorthand =>
  (path, extra = {}) =>
    route({ ...extra, path, methods: [verb] })

/** `@get(path)`: a GET route (which also answers HEAD). */
export const get: Shorthand = shorthand('GET')
/** `@post(path)`: a POST route. */
export const post: Shorthand = shorthand('POST')
/** `@put(path)`: a PUT route. */
export const put: Shorthand = shorthand('PUT')
/** `@patch(path)`: a PATCH route. */
export const patch: Shorthand = shorthand('PATCH')
/** `@del(path)`: a DELETE route (`delete` is a reserved word; also exported under that name). */
export const del: Shorthand = shorthand('DELETE')
/** `@head(path)`: an explicit HEAD route. */
export const head: Shorthand = shorthand('HEAD')
/** `@options(path)`: an OPTIONS route. */
export const options: Shorthand = shorthand('OPTIONS')
/** `@delete(path)`: the same as `@del(path)`, for code that imports it under that name. */
export { del as delete }

/**
 * Groups a class's decorated routes: a prefix, middleware, permissions and a name prefix.
 *
 * @example
 * @controller({ prefix: 'api/v1', middleware: ['api'] }) class Products { @get('products') index() {} }
 */
export function controller(declared: ControllerOptions = {}): ControllerDecorator {
  return (value, context) => {
    if (context.kind !== 'class') {
      throw routerErrors.error('FW_ERR_ROUTER_INVALID_DECORATOR', { problem: 'not-a-class' })
    }
    optionsByClass.set(value, declared)
  }
}

/** The `@controller()` options of a class (empty when undecorated) and its decorated methods, own and inherited. */
export function controllerRoutes(Class: ControllerClass): {
  options: ControllerOptions
  actions: DeclaredAction[]
} {
  const actions: DeclaredAction[] = []
  const seen = new Set<string>()
  let proto: unknown = Class.prototype
  while (proto !== null && proto !== undefined && proto !== Object.prototype) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (seen.has(key)) continue
      seen.add(key)
      const value = Object.getOwnPropertyDescriptor(proto, key)?.value
      const declared = typeof value === 'function' ? routesByMethod.get(value) : undefined
      // An override without decorators takes the name out of routing: the nearest definition rules.
      for (const options of declared ?? []) actions.push({ method: key, options })
    }
    proto = Object.getPrototypeOf(proto)
  }
  return { options: optionsByClass.get(Class) ?? {}, actions }
}
