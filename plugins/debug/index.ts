// The debug facility, server side: the debug-access grant, projections of the request's event log
// (the `_debug` payload, `Server-Timing`, `X-Fw-Debug`, `X-Request-Id`), their delivery through the
// `render` and `annotate` hooks, `measure()`/`recordService()`, `fw debug:token` and the dev panel.
import {
  crossOriginHeaders,
  definePlugin,
  send,
  type Kernel,
  type Reply,
  type RequestContext,
} from 'fw'
import type {} from 'fw/plugins/api'
import type {} from 'fw/plugins/logging'
import { declareDevPanel } from './devpanel.js'
import './events.js'
import { grantSecret, issueGrantToken, verifyGrantToken } from './grant.js'
import { TOOLBAR_MODULE_PATH, toolbarAssets } from './assets.js'
import type { ToolbarConfig } from './toolbar/payload.js'
import { injectToolbar, TOOLBAR_PATH, toolbarMarkup } from './inject.js'
import { measure, recordService } from './measure.js'
import { debugPayload, serverTiming, summaryHeader } from './projections.js'
import { decide, newRequestId, type Decider, type DebugState } from './state.js'
import { DebugTokenCommand } from './token-command.js'

export { measure, recordService } from './measure.js'
export { islandJson, injectToolbar, toolbarMarkup, ISLAND_ID, TOOLBAR_PATH } from './inject.js'
export type { ToolbarScript } from './inject.js'
export { toolbarAssets, buildToolbar, inlineSafe, TOOLBAR_MODULE_PATH } from './assets.js'
export type { ToolbarAssets } from './assets.js'
export { redactParams } from './redact.js'
// The kernel's secret rule, re-exported for code that imported it from here before it moved.
export { redact, isSecretKey, isSecretValue, MASK } from 'fw'
export {
  issueGrantToken,
  verifyGrantToken,
  parseTtl,
  GRANT_COOKIE,
  MIN_TTL,
  MAX_TTL,
  DEFAULT_TTL,
} from './grant.js'
export {
  debugPayload,
  serverTiming,
  summaryHeader,
  phaseTimes,
  MAX_STATEMENTS,
  MAX_LOGS,
  FRAMEWORK_PHASES,
} from './projections.js'
export type { PayloadInput } from './projections.js'
export type { DebugState } from './state.js'
export { DebugTokenCommand } from './token-command.js'
export { linesOf, MAX_PANEL_LINES } from './devpanel.js'
export type { PanelLine } from './devpanel.js'

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

const deciders = new WeakMap<Kernel, Decider>()
const OFF: Decider = { development: false, secret: undefined, now: Date.now }

/**
 * True when the request holds a valid debug grant. Independent of development mode: a grant never
 * makes `isDevelopment()` true, and development mode is not a grant.
 */
export function hasDebugGrant(ctx: RequestContext): boolean {
  const d = deciders.get(ctx.kernel)
  if (d === undefined) return false
  return decide(ctx, d).grant !== undefined
}

/** True in development mode (docs/errors.md "Development mode"). */
export function isDevelopment(kernel: Kernel): boolean {
  return kernel.isDevelopment()
}

const BODY_TYPES = /json|x-www-form-urlencoded/i

/** The request's body for the payload: only JSON and form bodies, parsed (or already parsed). */
async function capturedBody(ctx: RequestContext): Promise<unknown> {
  const type = ctx.headers['content-type']
  if (type === undefined || !BODY_TYPES.test(type)) return undefined
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return undefined
  try {
    return await ctx.body()
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

function plainJsonObject(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') {
    const plain: unknown = toJSON.call(value)
    return plain !== null && typeof plain === 'object' && !Array.isArray(plain)
      ? (plain as Record<string, unknown>)
      : undefined
  }
  return value as Record<string, unknown>
}

/**
 * The debug facility. With the `debug` feature, a request is annotated in development mode or when
 * it holds a grant (`fw debug:token`); with `DevPanel`, `/devpanel` and `/devpanel/logs` answer.
 *
 * @example
 * kernel.register(debug)                       // features: ['debug', 'DevPanel']
 * kernel.register(debug, { nonce: (ctx) => ctx.state.cspNonce })
 */
/**
 * Lets the request's origin time the reply, and read it (development only): the toolbar's own
 * files (`open`) for any origin; an app route only for an origin `api.cors_origins` allows, when
 * the api plugin is registered, so a restricted list can be tried locally. A reply whose CORS
 * something else (the API's policy) already answered keeps that answer.
 */
function allowOrigin(reply: Reply, ctx: RequestContext, open: boolean): Reply {
  const headers = crossOriginHeaders(ctx.headers.origin)
  if (headers === undefined) return reply
  const origin = headers['access-control-allow-origin']!
  if (reply.getHeader('timing-allow-origin') === undefined)
    reply.header('timing-allow-origin', headers['timing-allow-origin']!)
  reply.vary('Origin')
  if (reply.getHeader('access-control-allow-origin') !== undefined) return reply
  const kernel = ctx.kernel
  if (open || !kernel.hasPlugin('api') || kernel.plugin('api').allowsOrigin(origin) === true)
    reply.header('access-control-allow-origin', origin)
  return reply
}

const debug = definePlugin<DebugOptions | undefined, DebugApi>({
  name: 'debug',
  // logging: the dev panel's log view reads its file.
  optionalDependsOn: ['logging', 'database'],
  config: {
    defaults: { debug_token_secret: undefined },
    schema: { debug_token_secret: 'string?' },
  },
  setup(kernel, options = {}) {
    const secret = grantSecret(kernel.config)
    const now = options.now ?? Date.now
    const development = kernel.isDevelopment()
    const toolbar = options.toolbar ?? kernel.hasFeature('debug')
    const decider: Decider = toolbar ? { development, secret, now } : OFF
    deciders.set(kernel, decider)
    const nonceOf = options.nonce ?? ((ctx: RequestContext) => ctx.state.cspNonce)

    const api: DebugApi = {
      isDevelopment: () => kernel.isDevelopment(),
      hasDebugGrant: (ctx) => decide(ctx, decider).grant !== undefined,
      isAnnotated: (ctx) => decide(ctx, decider).annotate,
      issueToken: (ttl) => (secret === undefined ? undefined : issueGrantToken(secret, ttl, now())),
      verifyToken: (token) => verifyGrantToken(token, secret, now()),
      measure,
      recordService,
    }

    kernel.command(DebugTokenCommand)
    if (options.devPanel ?? kernel.hasFeature('DevPanel'))
      declareDevPanel(kernel, api.hasDebugGrant, { page: options.spa !== true })
    // Production without a key: nothing can ever be annotated, so nothing is tapped.
    if (!toolbar || (!development && secret === undefined)) return api

    // Measured service calls find their request through the scope; production leaves it to
    // the plugins that need it anyway (logging, database).
    if (development) kernel.useRequestScope()

    // The built toolbar: hashed files served by sirv for a year, plus two stable names that
    // always revalidate (the classic script, and an ES module re-exporting the hashed one).
    // In development a single-page app served from another origin (a Vite dev server) may
    // import the module and read the timings: the assets answer CORS for any origin, and every
    // annotated response lets the origin time it (`Timing-Allow-Origin`); an app route lets it
    // read the response when `api.cors_origins` allows it (every origin without the api plugin).
    const assets = toolbarAssets()
    kernel.static(TOOLBAR_PATH.slice(1, TOOLBAR_PATH.lastIndexOf('/')), assets.dir, {
      maxAge: 31_536_000,
      immutable: true,
      crossOrigin: development,
    })
    const asset = (bytes: Uint8Array) => (ctx: RequestContext) => {
      const reply = send(bytes, 'text/javascript; charset=utf-8').header(
        'cache-control',
        'no-cache',
      )
      return development ? allowOrigin(reply, ctx, true) : reply
    }
    kernel.router.get(TOOLBAR_PATH.slice(1), asset(new TextEncoder().encode(assets.inline)))
    kernel.router.get(
      TOOLBAR_MODULE_PATH.slice(1),
      asset(new TextEncoder().encode(`export { record, reportError } from './${assets.module}'\n`)),
    )
    const b = options.browser ?? {}
    const script = {
      code: assets.inline,
      config: {
        apiPrefix: b.apiPrefix ?? '/api',
        openapi: b.openapi ?? '/openapi.json',
        devpanel: b.devpanel ?? '/devpanel/logs',
        ...(b.apiKeyHeader === undefined ? {} : { apiKeyHeader: b.apiKeyHeader }),
        ...(b.tokenKey === undefined ? {} : { tokenKey: b.tokenKey }),
      },
    }
    // The API key only ever reaches pages in development, never a grant holder in production.
    const devScript =
      b.apiKey === undefined
        ? script
        : { ...script, config: { ...script.config, apiKey: b.apiKey } }

    const annotated = (ctx: RequestContext): DebugState | undefined => {
      const s = decide(ctx, decider)
      if (!s.annotate) return undefined
      // Never an incoming X-Request-Id: a fresh id from the CSPRNG for every annotated request.
      if (ctx.state.requestId === undefined || !issued.has(ctx)) {
        ctx.state.requestId = newRequestId()
        issued.add(ctx)
      }
      return s
    }
    const issued = new WeakSet<RequestContext>()

    // Synchronous taps: a request they have nothing to wait for costs no promise.
    kernel.hooks.request.tap({ name: 'debug', stage: -1000 }, (ctx) => {
      annotated(ctx)
      return undefined
    })

    const render = async (reply: Reply, ctx: RequestContext): Promise<Reply> => {
      const body = reply.body
      const isHtml = body.kind === 'html'
      const object = body.kind === 'json' ? plainJsonObject(body.value) : undefined
      if (!isHtml && (object === undefined || Object.hasOwn(object, '_debug'))) return reply
      if (isHtml && body.value.length === 0) return reply
      return ctx.log.phase('debugbar', async () => {
        const payload = debugPayload({
          ctx,
          events: ctx.log.all(),
          status: reply.status,
          id: ctx.state.requestId,
          time: ctx.log.now(),
          memoryBytes: process.memoryUsage().heapUsed,
          body: await capturedBody(ctx),
        })
        if (object !== undefined) {
          reply.body = { kind: 'json', value: { ...object, _debug: payload } }
        } else if (body.kind === 'html') {
          reply.body = {
            kind: 'html',
            value: injectToolbar(body.value, () =>
              toolbarMarkup(payload, nonceOf(ctx), development ? devScript : script),
            ),
          }
        }
        return reply
      })
    }
    // A request that is not annotated passes straight on, with no promise.
    kernel.hooks.render.tap({ name: 'debug', stage: 100 }, (reply, ctx) =>
      annotated(ctx) === undefined ? reply : render(reply, ctx),
    )

    let bootTimed = false
    kernel.hooks.annotate.tap('debug', (reply: Reply, ctx) => {
      const s = decide(ctx, decider)
      if (s.setCookie !== undefined) reply.appendHeader('set-cookie', s.setCookie)
      if (annotated(ctx) === undefined) return
      const events = ctx.log.all()
      const total = ctx.log.now()
      // The boot phases' durations go out once per process (then `desc="boot"`), so browser tools
      // do not draw a multi-second bar on every request.
      const timing = serverTiming(events, kernel.bootPhases, total, !bootTimed)
      bootTimed = true
      if (development) allowOrigin(reply, ctx, ctx.path.startsWith('/_fw/'))
      const existing = reply.getHeader('server-timing')
      reply.header(
        'server-timing',
        existing === undefined ? timing : `${String(existing)}, ${timing}`,
      )
      reply.header(
        'x-fw-debug',
        summaryHeader(events, total, process.memoryUsage().heapUsed, ctx.state.requestId),
      )
      if (ctx.state.requestId !== undefined) reply.header('x-request-id', ctx.state.requestId)
      const vary = reply.getHeader('vary')
      if (vary === undefined || !/(^|,)\s*cookie\s*(,|$)/i.test(String(vary)))
        reply.appendHeader('vary', 'Cookie')
      if (s.grant !== undefined) reply.header('cache-control', 'no-store, private')
    })

    return api
  },
})

export default debug
export { debugErrors } from './errors.js'
