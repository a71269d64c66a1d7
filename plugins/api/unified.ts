import type { Middleware } from 'fw'
import { apiError, refusalData } from './envelope.js'

/**
 * The unified middleware of first-party routes (README.md "Named middleware", "Failures"): (1) a
 * bearer token (`Authorization: Bearer`, or the `accessToken` / `userAuth` headers); (2) the web
 * session with a matching `X-CSRF-Token`; (3) otherwise 401 `Unauthenticated`. A token that was
 * presented and refused never falls back to the session; in development its 401 carries `data`
 * `{credential, reason}`, as the API-key middleware's 403 does.
 */
export const unified: Middleware = async function unified(ctx, next) {
  const identity = await ctx.identity()
  const refused = ctx.state.authRefused
  if (refused !== undefined && refused.credential !== 'session')
    return apiError('Unauthenticated', refusalData(ctx, refused))
  if (identity?.via === 'accessToken' || identity?.via === 'userAuth') {
    ;(ctx.state.api ??= {}).via = identity.via
    return next()
  }
  if (identity?.via === 'session' && identity.csrf === true) {
    ;(ctx.state.api ??= {}).via = 'session'
    return next()
  }
  return apiError('Unauthenticated')
}
