import type { HandlerRef, HttpMethod } from '../types.js'
import type { LegacyRequest } from './legacy.js'

/**
 * A JSON Schema, in the dialect OpenAPI 3.0 documents use (draft-07 keywords, plus `nullable` and
 * `example`).
 */
export type JsonSchema = { readonly [keyword: string]: unknown }

/** One documented response of a route. */
export interface RouteResponse {
  /** What the response means (OpenAPI's required `description`). Default: the status's phrase. */
  readonly description?: string
  /** The JSON body's schema. */
  readonly schema?: JsonSchema
}

/**
 * What a route declares about its request and responses: one declaration for the API document and
 * for validation. The body schema is compiled once, before the kernel listens (or on the route's
 * first request, in-process), and validates every request's body before the handler runs: a body
 * that does not match answers 422 naming each field (`FW_ERR_HTTP_BODY_INVALID`). The rest is
 * documentation.
 */
export interface RouteSchema {
  /** The request body (JSON, or form-urlencoded, whose strings are coerced to the schema's types). */
  readonly body?: JsonSchema
  /**
   * The query parameters, as an object schema (a property per parameter; an object-valued one
   * is `name[key]=…`). Describes them in the API document; the handler reads and checks them
   * (`ctx.query`), the kernel does not validate them.
   */
  readonly query?: JsonSchema
  /** Responses by status code. */
  readonly responses?: Readonly<Record<number, RouteResponse>>
  /** The operation's summary and description; default: the handler's doc comment. */
  readonly summary?: string
  readonly description?: string
  /** The operation's tags; default: the controller's name. */
  readonly tags?: readonly string[]
}

/** A declared route as the kernel sees it after compilation: every group already applied. */
export interface Route {
  /** Declared methods, upper case; `any` declares all of `HTTP_METHODS`. */
  readonly methods: readonly HttpMethod[]
  /** Declared path without leading or trailing slash, group prefixes applied: `api/v1/products/{id}`. */
  readonly path: string
  /** The query form of a route declared as `search?type=a`; undefined for an ordinary route. */
  readonly query: string | undefined
  readonly handler: HandlerRef
  /** Full name including group name prefixes. */
  readonly name: string | undefined
  /** Effective middleware names: outer group → inner group → route, exclusions removed, de-duplicated. */
  readonly middleware: readonly string[]
  /** Permissions merged from groups and the route. */
  readonly permissions: readonly string[]
  /** Effective constraints of this route's placeholders: global patterns overridden by `where()`. */
  readonly wheres: Readonly<Record<string, RegExp>>
  /** Placeholder name → model name, for implicit model binding. */
  readonly bindings: Readonly<Record<string, string>>
  /** True for an action of a classic controller reached by legacy decomposition. */
  readonly classic: boolean
  /** What the route declares about its body and responses (validation and the API document). */
  readonly schema: RouteSchema | undefined
  /**
   * True when the route answers JSON by default (`json: true` on it or an enclosing group): the
   * kernel's own replies (404, 405, 500, an `HttpError`) are JSON unless `Accept` ranks
   * `text/html` first.
   */
  readonly json: boolean
}

/** What `find()` answers: the route, the decoded placeholder values and, for classic actions, the legacy request. */
export interface RouteMatch {
  readonly route: Route
  readonly params: Readonly<Record<string, string>>
  readonly legacy?: LegacyRequest
}

declare module '../context.js' {
  // `ctx.match` is a RouteMatch (kernel/context.ts says why it is merged, not imported).
  interface ContextMatch extends RouteMatch {}
}

/** One level of `router.group()`, as captured when a route is declared inside it. */
export interface GroupFrame {
  readonly prefix: string
  readonly middleware: readonly string[]
  readonly withoutMiddleware: readonly string[]
  readonly permissions: readonly string[]
  readonly name: string
  readonly namespace: string
  /** True when the group answers JSON by default (`json: true`). */
  readonly json: boolean
}

/** A route as declared, still editable through its builder; compiled into a {@link Route}. */
export interface RouteDefinition {
  readonly methods: readonly HttpMethod[]
  /** Normalised path with group prefixes applied. */
  readonly path: string
  readonly query: string | undefined
  /** The handler with the group namespace already applied to a string handler. */
  readonly handler: HandlerRef
  /** Enclosing groups, outermost first. */
  readonly groups: readonly GroupFrame[]
  name: string | undefined
  readonly wheres: Map<string, RegExp | string>
  readonly middleware: string[]
  readonly withoutMiddleware: string[]
  readonly permissions: string[]
  readonly bindings: Map<string, string>
  readonly classic: boolean
  schema: RouteSchema | undefined
  /** True when the route itself says it answers JSON by default (groups add theirs at compile). */
  json: boolean
  /** Where the route came from, for error messages: `resource 'photos'`, `Shop.index`. */
  readonly origin: string | undefined
}

/**
 * Fluent editor of one declared route; every call returns the builder.
 *
 * @example
 * router.get('users/{id}', show).name('users.show').where('id', /\d+/).middleware('auth')
 */
export class RouteBuilder {
  readonly #definition: RouteDefinition
  readonly #changed: () => void

  /** @internal Created by the router's declaration methods. */
  constructor(definition: RouteDefinition, changed: () => void) {
    this.#definition = definition
    this.#changed = changed
  }

  /** Names the route; group name prefixes are prepended when it is compiled. */
  name(name: string): this {
    this.#definition.name = name
    return this.#touch()
  }

  /** Constrains a placeholder to a regular expression anchored to the whole segment. */
  where(param: string, pattern: RegExp | string): this {
    this.#definition.wheres.set(param, pattern)
    return this.#touch()
  }

  /** Adds named middleware after the middleware of the enclosing groups. */
  middleware(...names: string[]): this {
    this.#definition.middleware.push(...names)
    return this.#touch()
  }

  /** Removes named middleware, including middleware inherited from groups. */
  withoutMiddleware(...names: string[]): this {
    this.#definition.withoutMiddleware.push(...names)
    return this.#touch()
  }

  /** Adds permissions, merged with those of the enclosing groups. */
  permissions(...permissions: string[]): this {
    this.#definition.permissions.push(...permissions)
    return this.#touch()
  }

  /** Declares that a placeholder holds the key of a model, for implicit model binding. */
  bind(param: string, model: string): this {
    this.#definition.bindings.set(param, model)
    return this.#touch()
  }

  /**
   * Declares the request body and responses: the body schema validates each request (422 on a
   * mismatch), and everything goes into the API document (`fw api:docs`).
   *
   * @example
   * router.post('products', store).schema({
   *   body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
   *   responses: { 201: { description: 'The created product.' } },
   * })
   */
  schema(schema: RouteSchema): this {
    this.#definition.schema = schema
    return this.#touch()
  }

  /**
   * Declares that the route answers JSON by default: its 404 (a missing bound model), 405 and 500
   * are JSON unless the client ranks `text/html` first (a group says the same with `json: true`).
   */
  json(): this {
    this.#definition.json = true
    return this.#touch()
  }

  #touch(): this {
    this.#changed()
    return this
  }
}
