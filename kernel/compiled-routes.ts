import { compileRoute, handlerName, type Pipeline, type PipelineDeps } from './pipeline.js'
import type { Route } from './router/route.js'

/**
 * Each route's compiled pipeline and handler name, built once (at boot, or on first use for a
 * route declared later). Compiling checks what a route refers to: an unknown middleware,
 * controller or binding fails here rather than on a request.
 */
export class CompiledRoutes {
  readonly #pipelines = new WeakMap<Route, Pipeline>()
  readonly #names = new WeakMap<Route, string>()
  readonly #deps: PipelineDeps

  constructor(deps: PipelineDeps) {
    this.#deps = deps
  }

  /** The route's handler as `route.matched` and `fw route:list` show it. */
  nameOf(route: Route): string {
    let name = this.#names.get(route)
    if (name === undefined) this.#names.set(route, (name = handlerName(route)))
    return name
  }

  /** The route's pipeline: its middleware composed around its handler. */
  pipelineOf(route: Route): Pipeline {
    let pipeline = this.#pipelines.get(route)
    if (pipeline === undefined) {
      pipeline = compileRoute(route, this.#deps)
      this.#pipelines.set(route, pipeline)
    }
    return pipeline
  }
}
