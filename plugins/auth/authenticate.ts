import type { Kernel, Reply } from 'fw'
import { presentedToken } from './presented-token.js'
import { recordResolved } from './resolved.js'
import type { AuthRuntime } from './runtime.js'
import { csrfTokenOf, readWebSession, sameString, SESSION_COOKIE } from './sessions.js'
import { unverifiedClaims, verifyAccessToken } from './tokens.js'

/** Methods that change nothing: a session cookie alone may identify their caller. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Taps `authenticate` three times: `auth.accessToken` (bearer, `accessToken`, `userAuth`),
 * `auth.session` (the session cookie; a state-changing method also needs the session's
 * `X-CSRF-Token`), and `auth.anonymous` at stage 100 (records that nobody was recognised).
 */
export function tapAuthenticate(kernel: Kernel, rt: AuthRuntime): void {
  kernel.hooks.authenticate.tapPromise('auth.accessToken', async (ctx) => {
    const presented = presentedToken(ctx)
    if (presented === undefined) return undefined
    const { credential, source } = presented
    const check = await verifyAccessToken(rt, presented.token)
    if (!check.ok) {
      ctx.state.authRefused = { credential, reason: check.reason }
      // What the refused token says about itself, read without trusting it (the debug payload
      // shows it beside the reason); never the token or its signature.
      const claims = unverifiedClaims(presented.token)
      recordResolved(ctx, undefined, {
        credential,
        source,
        expires: claims?.exp ?? null,
        refused: check.reason,
        ...(claims === undefined ? {} : { claims: { ...claims }, unverified: true as const }),
      })
      return undefined
    }
    recordResolved(ctx, check.identity, {
      credential,
      source,
      expires: check.expires,
      claims: { ...check.claims },
    })
    return { ...check.identity, via: credential }
  })

  kernel.hooks.authenticate.tapPromise('auth.session', async (ctx) => {
    const value = ctx.cookies[SESSION_COOKIE]
    if (value === undefined || value === '') return undefined
    // The `session` phase: loading the web session (Server-Timing, the debug payload's timing).
    const start = ctx.log.now()
    const found = await readWebSession(rt, value)
    const end = ctx.log.now()
    ctx.log.record('phase.completed', { name: 'session', start, duration: end - start }, end)
    if (!found.ok) {
      ctx.state.authRefused = { credential: 'session', reason: found.reason }
      recordResolved(ctx, undefined, {
        credential: 'session',
        source: 'cookie',
        expires: null,
        refused: found.reason,
      })
      return undefined
    }
    const expected = csrfTokenOf(rt, String(found.identity.tokenId))
    const offered = ctx.header('x-csrf-token')
    const csrf = expected !== undefined && offered !== undefined && sameString(offered, expected)
    const expires = found.identity.expires ?? null
    if (!csrf && !SAFE.has(ctx.method)) {
      // The cookie alone never authenticates a state-changing call (a cross-site form would
      // carry it): anonymous, and the reason recorded.
      ctx.state.authRefused = { credential: 'session', reason: 'csrf' }
      recordResolved(ctx, undefined, {
        credential: 'session',
        source: 'cookie',
        expires,
        refused: 'csrf',
      })
      return undefined
    }
    recordResolved(ctx, found.identity, { credential: 'session', source: 'cookie', expires })
    return { ...found.identity, csrf }
  })

  kernel.hooks.authenticate.tapPromise({ name: 'auth.anonymous', stage: 100 }, async (ctx) => {
    if (ctx.log.ofType('auth.resolved').length === 0)
      recordResolved(ctx, undefined, { credential: null, source: null, expires: null })
    return undefined
  })
}

/**
 * In development, a request that carries a session cookie loads its session even when nothing
 * asked who made it (`/_demo/ping`): a render tap (stage 90, before the debug payload is built at
 * 100) resolves `ctx.identity()`, so the `session` phase and the `auth` data reach the debug
 * payload, `Server-Timing` and the toolbar. It runs after the handler, so the handler sees the
 * request exactly as in production. A request without the cookie passes through synchronously,
 * and production does not tap at all.
 */
export function tapSessionPhase(kernel: Kernel): void {
  if (!kernel.isDevelopment()) return
  kernel.hooks.render.tap({ name: 'auth.session-phase', stage: 90 }, (reply, ctx) => {
    const value = ctx.cookies[SESSION_COOKIE]
    if (value === undefined || value === '') return reply
    return ctx.identity().then(
      (): Reply => reply,
      (): Reply => reply,
    )
  })
}
