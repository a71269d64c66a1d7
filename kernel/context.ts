import type { IncomingHttpHeaders } from 'node:http'
import { parse as parseCookies } from 'cookie'
import { acceptsJsonFirst, ranksHtmlFirst } from './accept.js'
import type { EventLog } from './events.js'
import { runBail } from './hook-runner.js'
import { readBody, type BodySource } from './http/body.js'
import type { Kernel } from './kernel-type.js'
import { parseQs } from './qs.js'
import type { Identity } from './identity.js'

/**
 * Per-request state that plugins attach (a session, a list query, …). Extend it by declaration
 * merging rather than casting:
 *
 * @example
 * declare module 'fw' {
 *   interface ContextState { session?: Session }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface ContextState {}

/**
 * What routing matched: the router's `RouteMatch` (a route and its parameters), merged into this
 * interface by kernel/router/route.ts. A route names its handler, whose parameter is this request:
 * the two types refer to each other, and the merge lets each live in its own file without the two
 * files importing each other (`npm run lint` refuses import circles).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface ContextMatch {}

/**
 * What the server layer (a socket or `inject`) hands the kernel for one request. A field given as
 * a function is called once, when first asked, as a method of this object.
 */
export interface RequestInit {
  readonly method: string
  /** Path and query string as received, e.g. `/products/5?x=1`. */
  readonly url: string
  /** The request's headers, or a function that reads them when first asked. */
  readonly headers: IncomingHttpHeaders | (() => IncomingHttpHeaders)
  readonly body: BodySource
  /**
   * True when the request came over TLS (or a trusted `X-Forwarded-Proto: https`), or a function
   * that tells when first asked.
   */
  readonly secure: boolean | (() => boolean)
  /** The client's address, or a function that reads it when first asked. */
  readonly ip: string | (() => string)
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({})
/** qs limits: nested keys are accepted, but not deep or wide enough to cost anything. */
export const QS_OPTIONS = { depth: 5, arrayLimit: 100, parameterLimit: 1000 } as const

/** True when `s` has no lower-case ASCII letter (a method as Node's parser hands it). */
function isUpperCase(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 97 && c <= 122) return false
  }
  return true
}

/**
 * One request as the kernel, plugins and handlers see it. Cheap to create: the query string, the
 * cookies, the body and the identity are read only when something asks.
 */
export class RequestContext {
  readonly kernel: Kernel
  readonly log: EventLog
  /** Upper-case method as received. */
  readonly method: string
  /** Path and query string as received. */
  readonly url: string
  /** The path as received (still percent-encoded), with its leading slash. */
  readonly path: string
  /**
   * The path routing matches against: `path` unless a `request` tap (or a `route` tap at a
   * negative stage) rewrote it: the admin area strips its prefix so. The request's `path` itself
   * is never rewritten.
   */
  routingPath: string
  /** The raw query string, without `?` (empty when there is none). */
  readonly querystring: string
  /** Route placeholders, percent-decoded; empty until routing matched. */
  params: Readonly<Record<string, string>> = EMPTY
  /**
   * What routing matched, once it has. A `request` tap that routes the request itself (the admin
   * area, for its own requests) may set it: the `route` hook is then skipped, and the match
   * recorded and run as if routing had found it.
   */
  match: ContextMatch | undefined = undefined
  /**
   * True when this request answers JSON by default: middleware of an API sets it (the api plugin's
   * `contentType` does), and the kernel sets it when routing misses under a group declared with
   * `json: true`. A route declared so needs no flag: its `json` is read from the match. See
   * {@link wantsJson}.
   */
  jsonByDefault = false
  #ip: string | (() => string)
  #headers: IncomingHttpHeaders | (() => IncomingHttpHeaders)
  #secure: boolean | (() => boolean)
  #models: Record<string, unknown> | undefined
  #state: ContextState | undefined

  readonly #init: RequestInit
  readonly #body: BodySource
  #query: Record<string, unknown> | undefined
  #cookies: Record<string, string | undefined> | undefined
  #parsedBody: Promise<unknown> | undefined
  #identity: Promise<Identity | undefined> | undefined

  constructor(kernel: Kernel, init: RequestInit, log: EventLog) {
    this.kernel = kernel
    this.log = log
    // Node's parser hands the method in capitals already; `toUpperCase` would copy it anyway.
    const method = init.method
    this.method = isUpperCase(method) ? method : method.toUpperCase()
    this.url = init.url
    const q = init.url.indexOf('?')
    this.path = q === -1 ? init.url : init.url.slice(0, q)
    this.querystring = q === -1 ? '' : init.url.slice(q + 1)
    this.routingPath = this.path
    this.#init = init
    this.#headers = init.headers
    this.#secure = init.secure
    this.#ip = init.ip
    this.#body = init.body
  }

  /** The request's headers, names in lower case (read from the socket on first use). */
  get headers(): IncomingHttpHeaders {
    if (typeof this.#headers === 'function') this.#headers = this.#headers.call(this.#init)
    return this.#headers
  }

  /** True when the request came over TLS (or a trusted `X-Forwarded-Proto: https`). */
  get secure(): boolean {
    if (typeof this.#secure === 'function') this.#secure = this.#secure.call(this.#init)
    return this.#secure
  }

  /** The client's address (the first `X-Forwarded-For` entry when `http.trust_proxy` is on). */
  get ip(): string {
    if (typeof this.#ip === 'function') this.#ip = this.#ip.call(this.#init)
    return this.#ip
  }

  /** Models loaded by implicit route binding, keyed by parameter name. */
  get models(): Record<string, unknown> {
    this.#models ??= {}
    return this.#models
  }

  /** Plugin state; see {@link ContextState}. */
  get state(): ContextState {
    this.#state ??= {}
    return this.#state
  }

  /**
   * The request URI: the path without leading or trailing slash (docs/routing.md "Leading and
   * trailing slashes").
   */
  get uri(): string {
    let start = 0
    let end = this.path.length
    while (start < end && this.path.charCodeAt(start) === 47) start++
    while (end > start && this.path.charCodeAt(end - 1) === 47) end--
    return this.path.slice(start, end)
  }

  /** The parsed query string; nested keys (`a[b]=1`) become objects. */
  get query(): Record<string, unknown> {
    this.#query ??=
      this.querystring === ''
        ? {}
        : (parseQs(this.querystring, QS_OPTIONS) as Record<string, unknown>)
    return this.#query
  }

  /** The first value of a header, by any casing. */
  header(name: string): string | undefined {
    const v = this.headers[name.toLowerCase()]
    return Array.isArray(v) ? v[0] : v
  }

  /** The request's cookies. */
  get cookies(): Record<string, string | undefined> {
    this.#cookies ??= this.headers.cookie ? parseCookies(this.headers.cookie) : {}
    return this.#cookies
  }

  /**
   * The parsed body: JSON, form-urlencoded (nested keys), text, or bytes, by content type; `{}`
   * when there is none. A malformed body rejects with a 400 `HttpError`, an oversized one with 413,
   * an unsupported type with 415.
   */
  body<T = unknown>(): Promise<T> {
    if (this.#parsedBody === undefined) {
      this.#parsedBody = readBody(this.#body, this.headers, this.kernel.config.http.body_limit)
      // Whoever awaits the body gets its failure; a caller that starts reading and never waits
      // must not leave an unhandled rejection, which would end the process.
      this.#parsedBody.catch(() => undefined)
    }
    return this.#parsedBody as Promise<T>
  }

  /**
   * The body as the server layer handed it, unread: the socket's stream, the bytes `inject` was
   * given, or `undefined`. For a streaming parser of another body type (the uploads plugin reads
   * `multipart/form-data` from it); a request's body is read once, by `body()` or by that parser.
   */
  rawBody(): BodySource {
    return this.#body
  }

  /**
   * Who made the request: runs the `authenticate` hook once, on first call, and remembers the answer.
   */
  identity(): Promise<Identity | undefined> {
    this.#identity ??= new Promise((resolve) =>
      resolve(runBail(this.kernel.hooks.authenticate, this)),
    )
    return this.#identity
  }

  /**
   * True when a reply that can be JSON or an HTML page (the kernel's errors, a list) should be
   * JSON: `Accept` names `application/json` and does not rank `text/html` above it (a browser
   * listing JSON at a lower quality gets pages), or it is an XHR; or the request answers JSON by
   * default (its route or group says `json: true`, or {@link jsonByDefault} is set) and `Accept`
   * does not rank `text/html` first (no `Accept`, `*\/*`, `application/xml`: JSON).
   */
  wantsJson(): boolean {
    const accept = this.headers.accept
    if (accept !== undefined && acceptsJsonFirst(accept)) return true
    if (this.headers['x-requested-with']?.toString().toLowerCase() === 'xmlhttprequest') return true
    if (!this.jsonByDefault && this.match?.route.json !== true) return false
    return accept === undefined || !ranksHtmlFirst(accept)
  }
}
