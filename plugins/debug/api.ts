// The debug plugin's options and the API other plugins reach with `kernel.plugin('debug')`.
import type { RequestContext } from 'fw'
import type { measure, recordService } from './measure.js'
import type { Projection } from './payload.js'
import type { ToolbarConfig } from './toolbar/payload.js'

/** Options of the debug plugin. */
export interface DebugOptions {
  /**
   * The CSP nonce the toolbar's script element carries. Default: `ctx.state.cspNonce` (set it in a
   * `request` tap or middleware that also sends the policy).
   */
  nonce?: (ctx: RequestContext) => string | undefined
  /** Annotate requests at all. Default: `features` lists `debug`. */
  toolbar?: boolean
  /** Serve the dev panel. Default: `features` lists `DevPanel`. */
  devPanel?: boolean
  /**
   * A single-page app brings its own pages: no `/devpanel` page (its log endpoint,
   * `/devpanel/logs`, stays for the toolbar's server-log button). Default `false`.
   */
  spa?: boolean
  /** The clock, Unix milliseconds (grant expiry). Default `Date.now`. */
  now?: () => number
  /** What the browser toolbar is told about the application (its API tab, the dev panel). */
  browser?: ToolbarSettings
}

/** The browser toolbar's settings (sent in its script element's `data-config`); see README. */
export type ToolbarSettings = ToolbarConfig

/** What `kernel.plugin('debug')` returns. */
export interface DebugApi {
  /** True in development mode; a debug grant never makes it so. */
  isDevelopment(): boolean
  /** True when the request holds a valid debug grant (a redeemed token or its cookie). */
  hasDebugGrant(ctx: RequestContext): boolean
  /** True when the request is annotated (development, or a grant). */
  isAnnotated(ctx: RequestContext): boolean
  /** Issues a grant token (`<expiry>.<hmac>`); `undefined` without an application key. */
  issueToken(ttlSeconds?: number): { token: string; expires: number; ttl: number } | undefined
  /** The expiry (Unix seconds) of a token that verifies now, else `undefined`. */
  verifyToken(token: string): number | undefined
  /** See {@link measure}. */
  measure: typeof measure
  /** See {@link recordService}. */
  recordService: typeof recordService
  /**
   * Reports a plugin's own events under a key of the `_debug` payload (README.md "The payload").
   * Call it in `setup`, with `'debug'` in `optionalDependsOn`.
   *
   * @example
   * if (kernel.hasPlugin('debug')) kernel.plugin('debug').project('views', viewsProjection)
   */
  project(key: string, projection: Projection): void
  /**
   * The cross-origin policy of app routes in development (README.md "What an annotated response
   * carries"): an origin the policy refuses may time a response but not read it. Default: every
   * origin (the api plugin registers `api.cors_origins`).
   */
  allowOrigins(policy: (origin: string) => boolean): void
  /** The log file the dev panel reads (the logging plugin registers its own). */
  readLogFile(file: () => string | undefined): void
  /**
   * Tells the toolbar's API tab about the app's API (README.md "What the toolbar is told"): the
   * api plugin gives its prefix (`api.prefix`), the openapi plugin the path it serves its document
   * at. The `browser` option, when it names either, wins.
   */
  describeApi(description: ApiDescription): void
}

/** What a plugin tells the toolbar's API tab: where operations go, where the document is. */
export interface ApiDescription {
  /** The path the API's operations are under, e.g. `/api/v1`. */
  readonly prefix?: string
  /** The same-origin path of the OpenAPI document, e.g. `/api/openapi.json`. */
  readonly document?: string
}

declare module 'fw' {
  interface PluginApis {
    debug: DebugApi
  }
  interface FwConfig {
    /** Signs debug grants instead of the application key when set. */
    debug_token_secret: string | undefined
  }
}
