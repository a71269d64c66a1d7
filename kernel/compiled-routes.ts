import { compileErrors } from './error-codes.js'
import { compileRoute, prepareRoute, type ChainDeps, type CompiledRoute } from './route-compile.js'
import type { Route } from './router/route.js'
import type { Router } from './router/router.js'
import type { BindingLoader, ControllerClass, Middleware } from './types.js'

/**
 * What routes refer to by name (middleware, controllers, model loaders), and each route compiled
 * into its chain (kernel/route-compile.ts), built once (at boot, or on first use for a route declared
 * later). Compiling checks what a route refers to: an unknown middleware, controller or binding
 * fails here rather than on a request.
 */
export class CompiledRoutes {
  readonly #compiled = new WeakMap<Route, CompiledRoute>()
  readonly #middleware = new Map<string, Middleware>()
  readonly #controllers = new Map<string, ControllerClass>()
  readonly #bindings = new Map<string, BindingLoader>()
  readonly #deps: ChainDeps = {
    middleware: (name) => this.#middleware.get(name),
    controller: (name) => this.#controllers.get(name),
    binding: (model) => this.#bindings.get(model),
  }

  /** Registers named middleware; a name can be registered once. */
  addMiddleware(name: string, fn: Middleware): void {
    if (this.#middleware.has(name)) {
      throw compileErrors.error('FW_ERR_MIDDLEWARE_DUPLICATE', { name })
    }
    this.#middleware.set(name, fn)
  }

  addController(name: string, cls: ControllerClass): void {
    this.#controllers.set(name, cls)
  }

  addBinding(model: string, loader: BindingLoader): void {
    this.#bindings.set(model, loader)
  }

  bindingFor(model: string): BindingLoader | undefined {
    return this.#bindings.get(model)
  }

  middlewareFor(name: string): Middleware | undefined {
    return this.#middleware.get(name)
  }

  /** Compiles every route of the router (at boot): a broken reference fails here. */
  compileAll(router: Router): void {
    for (const route of router.routes()) this.compiled(route)
    if (router.fallbackRoute) this.compiled(router.fallbackRoute)
  }

  /** Compiles what routes leave to first need (body schemas), before listening. */
  prepareAll(router: Router): void {
    for (const route of router.routes()) prepareRoute(this.compiled(route))
  }

  /** The route compiled (once) into its chain. */
  compiled(route: Route): CompiledRoute {
    let compiled = this.#compiled.get(route)
    if (compiled === undefined) {
      compiled = compileRoute(route, this.#deps)
      this.#compiled.set(route, compiled)
    }
    return compiled
  }
}
