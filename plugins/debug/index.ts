// The debug facility, server side. Each job in its own file: the debug-access grant (`grant.ts`,
// `state.ts`), the `_debug` payload and its projections (`payload.ts`, `projections.ts`; other
// plugins register projections of their own events), the headers (`headers.ts`), their delivery
// through `render` and `annotate` (`delivery.ts`), the toolbar's files (`toolbar-routes.ts`),
// `measure()`/`recordService()`, `fw debug:token` and the dev panel. This file is the wiring.
import { definePlugin, type Kernel, type RequestContext } from 'fw'
import type { DebugApi, DebugOptions } from './api.js'
import { projectDatabaseEvents } from './database-projections.js'
import { tapDelivery } from './delivery.js'
import { declareDevPanel, knownLogAccess } from './devpanel.js'
import './events.js'
import { grantSecret, issueGrantToken, verifyGrantToken } from './grant.js'
import { measure, recordService } from './measure.js'
import { PayloadProjections, type PayloadInput } from './payload.js'
import { projectOwnEvents } from './projections.js'
import { decide, type Decider } from './state.js'
import { serveToolbar } from './toolbar-routes.js'
import { DebugTokenCommand } from './token-command.js'

export type { DebugApi, DebugOptions, ToolbarSettings } from './api.js'
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
export { serverTiming, summaryHeader, phaseTimes, FRAMEWORK_PHASES } from './headers.js'
export { MAX_STATEMENTS } from './database-projections.js'
export type { PayloadInput, Projection, ProjectionInput } from './payload.js'
export type { DebugState } from './state.js'
export { DebugTokenCommand } from './token-command.js'
export { linesOf, MAX_PANEL_LINES } from './devpanel.js'
export type { PanelLine } from './devpanel.js'

const deciders = new WeakMap<Kernel, Decider>()
const payloads = new WeakMap<Kernel, PayloadProjections>()
const OFF: Decider = { development: false, secret: undefined, now: Date.now }

/** The projections of the debug plugin itself (the kernel's events, its own, the database's). */
function ownProjections(): PayloadProjections {
  const payload = new PayloadProjections()
  projectOwnEvents(payload)
  projectDatabaseEvents(payload)
  return payload
}

/**
 * The `_debug` payload (also the island's content): the projections the request's kernel
 * registered, or the debug plugin's own where it is not registered. A projection that throws
 * becomes `{error}` under its key.
 */
export function debugPayload(input: PayloadInput): Record<string, unknown> {
  return (payloads.get(input.ctx.kernel) ?? ownProjections()).build(input)
}

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

/**
 * The debug facility. With the `debug` feature, a request is annotated in development mode or when
 * it holds a grant (`fw debug:token`); with `DevPanel`, `/devpanel` and `/devpanel/logs` answer.
 *
 * @example
 * kernel.register(debug)                       // features: ['debug', 'DevPanel']
 * kernel.register(debug, { nonce: (ctx) => ctx.state.cspNonce })
 */
const debug = definePlugin<DebugOptions | undefined, DebugApi>({
  name: 'debug',
  // database: its events are projected here until it registers projections of its own.
  optionalDependsOn: ['database'],
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
    const payload = ownProjections()
    payloads.set(kernel, payload)
    // What other plugins register: who may read an app route cross-origin, the dev panel's log.
    let policy = (_origin: string): boolean => true
    let logFile = (): string | undefined => undefined
    const described: { prefix?: string; document?: string } = {}

    const api: DebugApi = {
      isDevelopment: () => kernel.isDevelopment(),
      hasDebugGrant: (ctx) => decide(ctx, decider).grant !== undefined,
      isAnnotated: (ctx) => decide(ctx, decider).annotate,
      issueToken: (ttl) => (secret === undefined ? undefined : issueGrantToken(secret, ttl, now())),
      verifyToken: (token) => verifyGrantToken(token, secret, now()),
      measure,
      recordService,
      project: (key, projection) => payload.project(key, projection),
      allowOrigins: (given) => (policy = given),
      readLogFile: (file) => (logFile = file),
      describeApi: (description) => void Object.assign(described, description),
    }

    kernel.command(DebugTokenCommand)
    // The dev panel at the site root only: an admin area never takes it (README.md "Dev panel (feature `DevPanel`)").
    kernel.router.claim('debug', '/devpanel*')
    const panel = options.devPanel ?? kernel.hasFeature('DevPanel')
    if (panel)
      declareDevPanel(kernel, api.hasDebugGrant, {
        page: options.spa !== true,
        logFile: () => logFile(),
      })
    // Production without a key: nothing can ever be annotated, so nothing is tapped.
    if (!toolbar || (!development && secret === undefined)) return api

    // Measured service calls find their request through the scope; production leaves it to
    // the plugins that need it anyway (logging, database).
    if (development) kernel.useRequestScope()
    const originPolicy = (origin: string) => policy(origin)
    tapDelivery(kernel, {
      decider,
      development,
      nonceOf: options.nonce ?? ((ctx: RequestContext) => ctx.state.cspNonce),
      scripts: serveToolbar(kernel, options.browser ?? {}, described, development, originPolicy),
      payload,
      policy: originPolicy,
      logAccess: panel ? (ctx) => knownLogAccess(ctx, api.hasDebugGrant) : undefined,
    })
    return api
  },
})

export default debug
export { debugErrors } from './errors.js'
