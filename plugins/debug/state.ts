// Whether a request is annotated, and why: development mode, or a grant (a redeemed
// `?_debug=<token>`, or the `fw_debug` cookie). Decided once per request, remembered in
// `ctx.state.debug`.
import { randomFillSync } from 'node:crypto'
import type { RequestContext } from 'fw'
import { clearGrantCookie, GRANT_COOKIE, grantCookie, verifyGrantToken } from './grant.js'

/** Why and how a request is annotated. */
export interface DebugState {
  /** True when the request gets the debug data (headers, `_debug`, the toolbar). */
  readonly annotate: boolean
  /** Where the grant came from: a token offered now, or the cookie of an earlier one. */
  readonly grant: 'token' | 'cookie' | undefined
  /** Unix seconds the grant ends, when there is one. */
  readonly expires: number | undefined
  /** A `Set-Cookie` to send (setting or clearing the grant cookie), if any. */
  readonly setCookie: string | undefined
}

declare module 'fw' {
  interface ContextState {
    /** The debug plugin's decision for this request. */
    debug?: DebugState
    /** A Content-Security-Policy nonce the page uses; the toolbar's script element carries it. */
    cspNonce?: string
  }
}

/** What deciding needs. */
export interface Decider {
  readonly development: boolean
  readonly secret: string | undefined
  readonly now: () => number
}

const NONE: DebugState = Object.freeze({
  annotate: false,
  grant: undefined,
  expires: undefined,
  setCookie: undefined,
})
const DEV: DebugState = Object.freeze({ ...NONE, annotate: true })

/** The `_debug` query parameter, when the query string names it. */
function offered(ctx: RequestContext): string | undefined {
  if (!ctx.querystring.includes('_debug')) return undefined
  const v = ctx.query._debug
  const first = Array.isArray(v) ? v[0] : v
  return typeof first === 'string' ? first : undefined
}

/** Decides (once) whether and why this request is annotated. */
export function decide(ctx: RequestContext, d: Decider): DebugState {
  const state = ctx.state
  if (state.debug !== undefined) return state.debug
  const offer = offered(ctx)
  const cookieHeader = ctx.headers.cookie
  const cookie =
    cookieHeader !== undefined && cookieHeader.includes(GRANT_COOKIE)
      ? ctx.cookies[GRANT_COOKIE]
      : undefined
  let decision: DebugState
  if (offer === undefined && cookie === undefined) decision = d.development ? DEV : NONE
  else decision = decideGrant(ctx, d, offer, cookie)
  state.debug = decision
  return decision
}

function decideGrant(
  ctx: RequestContext,
  d: Decider,
  offer: string | undefined,
  cookie: string | undefined,
): DebugState {
  // Over TLS, or through a proxy the operator trusts (`http.trust_proxy`): a client's own
  // `X-Forwarded-Proto` counts for nothing (test/plugins/debug/grant.test.ts "Secure").
  const secure = ctx.secure
  if (offer === 'off') {
    return { ...NONE, setCookie: clearGrantCookie(secure) }
  }
  const now = d.now()
  if (offer !== undefined && offer !== '') {
    const expires = verifyGrantToken(offer, d.secret, now)
    if (expires !== undefined)
      return {
        annotate: true,
        grant: 'token',
        expires,
        setCookie: grantCookie(offer, expires, secure),
      }
  }
  if (cookie !== undefined) {
    const expires = verifyGrantToken(cookie, d.secret, now)
    if (expires !== undefined)
      return { annotate: true, grant: 'cookie', expires, setCookie: undefined }
    // Expired, foreign (another key) or malformed: end it.
    return {
      annotate: d.development,
      grant: undefined,
      expires: undefined,
      setCookie: clearGrantCookie(secure),
    }
  }
  return d.development ? DEV : NONE
}

const POOL = Buffer.alloc(4096)
let poolAt = POOL.length

/** A request id: 16 lowercase hex characters from the CSPRNG. */
export function newRequestId(): string {
  if (poolAt + 8 > POOL.length) {
    randomFillSync(POOL)
    poolAt = 0
  }
  const id = POOL.toString('hex', poolAt, poolAt + 8)
  poolAt += 8
  return id
}
