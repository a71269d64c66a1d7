// Delivery of the projections: the request id, the `_debug` payload or the toolbar through
// `render`, and the headers (`Server-Timing`, `X-Fw-Debug`, `X-Request-Id`) through `annotate`.
// Synchronous taps: a request that is not annotated passes straight on, with no promise.
import { messageOf, type Kernel, type Reply, type RequestContext } from 'fw'
import { allowOrigin, type OriginPolicy } from './cross-origin.js'
import { requestTime, serverTiming, summaryHeader } from './headers.js'
import { injectToolbar, toolbarMarkup } from './inject.js'
import type { PayloadProjections } from './payload.js'
import { decide, newRequestId, type Decider, type DebugState } from './state.js'
import type { ToolbarScripts } from './toolbar-routes.js'

/** What delivery needs from the plugin's setup. */
export interface Delivery {
  readonly decider: Decider
  readonly development: boolean
  readonly nonceOf: (ctx: RequestContext) => string | undefined
  readonly scripts: ToolbarScripts
  readonly payload: PayloadProjections
  readonly policy: OriginPolicy
  /** Whether the user may read the dev panel's log lines (null: unknown); undefined: no panel. */
  readonly logAccess: ((ctx: RequestContext) => boolean | null) | undefined
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
    return { error: messageOf(error) }
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

/** Taps `request`, `render` and `annotate` to deliver the debug data on annotated requests. */
export function tapDelivery(kernel: Kernel, d: Delivery): void {
  const issued = new WeakSet<RequestContext>()
  const annotated = (ctx: RequestContext): DebugState | undefined => {
    const s = decide(ctx, d.decider)
    if (!s.annotate) return undefined
    // Never an incoming X-Request-Id: a fresh id from the CSPRNG for every annotated request.
    if (ctx.state.requestId === undefined || !issued.has(ctx)) {
      ctx.state.requestId = newRequestId()
      issued.add(ctx)
    }
    return s
  }

  kernel.hooks.request.tap({ name: 'debug', stage: -1000 }, (ctx) => {
    annotated(ctx)
    return undefined
  })
  kernel.hooks.render.tap({ name: 'debug', stage: 100 }, (reply, ctx) =>
    annotated(ctx) === undefined ? reply : render(reply, ctx, d),
  )
  let bootTimed = false
  kernel.hooks.annotate.tap('debug', (reply: Reply, ctx) => {
    const s = decide(ctx, d.decider)
    if (s.setCookie !== undefined) reply.appendHeader('set-cookie', s.setCookie)
    if (annotated(ctx) === undefined) return
    // The boot phases' durations go out once per process (then `desc="boot"`), so browser tools
    // do not draw a multi-second bar on every request.
    annotate(reply, ctx, d, !bootTimed)
    bootTimed = true
    if (s.grant !== undefined) reply.header('cache-control', 'no-store, private')
  })
}

/** Puts the payload under `_debug` of a JSON object, or the toolbar into an HTML page. */
async function render(reply: Reply, ctx: RequestContext, d: Delivery): Promise<Reply> {
  const body = reply.body
  const isHtml = body.kind === 'html'
  const object = body.kind === 'json' ? plainJsonObject(body.value) : undefined
  if (!isHtml && (object === undefined || Object.hasOwn(object, '_debug'))) return reply
  if (isHtml && body.value.length === 0) return reply
  // The payload's `time` is the start of this phase as the log records it, which is also what
  // `X-Fw-Debug` reports (`requestTime`): one figure (test/plugins/debug/payload.test.ts "one time").
  const start = ctx.log.now()
  try {
    const payload = d.payload.build({
      ctx,
      events: ctx.log.all(),
      status: reply.status,
      id: ctx.state.requestId,
      time: start,
      memoryBytes: process.memoryUsage().heapUsed,
      body: await capturedBody(ctx),
      devpanel: d.logAccess === undefined ? false : d.logAccess(ctx),
    })
    if (object !== undefined) {
      reply.body = { kind: 'json', value: { ...object, _debug: payload } }
    } else if (body.kind === 'html') {
      const script = d.development ? d.scripts.devScript : d.scripts.script
      reply.body = {
        kind: 'html',
        value: injectToolbar(body.value, () => toolbarMarkup(payload, d.nonceOf(ctx), script)),
      }
    }
    return reply
  } finally {
    const end = ctx.log.now()
    ctx.log.record('phase.completed', { name: 'debugbar', start, duration: end - start }, end)
  }
}

/** The headers of an annotated response. */
function annotate(reply: Reply, ctx: RequestContext, d: Delivery, bootDurations: boolean): void {
  const events = ctx.log.all()
  const total = ctx.log.now()
  const timing = serverTiming(events, ctx.kernel.bootPhases, total, bootDurations)
  if (d.development) allowOrigin(reply, ctx, ctx.path.startsWith('/_fw/'), d.policy)
  const existing = reply.getHeader('server-timing')
  reply.header('server-timing', existing === undefined ? timing : `${String(existing)}, ${timing}`)
  reply.header(
    'x-fw-debug',
    summaryHeader(
      events,
      requestTime(events, total),
      process.memoryUsage().heapUsed,
      ctx.state.requestId,
    ),
  )
  if (ctx.state.requestId !== undefined) reply.header('x-request-id', ctx.state.requestId)
  const vary = reply.getHeader('vary')
  if (vary === undefined || !/(^|,)\s*cookie\s*(,|$)/i.test(String(vary)))
    reply.appendHeader('vary', 'Cookie')
}
