import { json, type Kernel, type Middleware, type RequestContext } from 'fw'

/** The 401 envelope of spec-notes.md "API middleware" for the unified middleware. */
const UNAUTHENTICATED = {
  status: 401,
  statusmessage: 'Unauthenticated',
  message: 'Authentication required.',
  error: 'Unauthenticated',
}

/**
 * The unified middleware of first-party routes (spec.md "Unified middleware"), as far as the
 * playground needs it before the API-middleware plugin lands: a valid bearer token (or
 * `accessToken` header), else the web session with a matching `X-CSRF-Token`, else 401 JSON. An
 * invalid token never falls back to the session.
 */
export const unified: Middleware = async function unified(ctx, next) {
  const identity = await ctx.identity()
  const refused = ctx.state.authRefused
  if (refused !== undefined && refused.credential !== 'session') return json(UNAUTHENTICATED, 401)
  const byToken = identity?.via === 'accessToken' || identity?.via === 'userAuth'
  const bySession = identity?.via === 'session' && identity.csrf === true
  return byToken || bySession ? next() : json(UNAUTHENTICATED, 401)
}

/** `GET /api/v1/me`: `{id, username, email, usertype}` of the current identity. */
export async function me(ctx: RequestContext): Promise<Record<string, unknown>> {
  const identity = (await ctx.identity())!
  const user = await ctx.kernel.plugin('auth').findUser(String(identity.username))
  return {
    id: identity.id,
    username: identity.username,
    email: user?.email ?? null,
    usertype: identity.usertype,
  }
}

/** Declares the unified middleware and `GET /api/v1/me` (named `v1.me`). */
export function declareMe(kernel: Kernel): void {
  kernel.middleware('unified', unified)
  kernel.router.get('api/v1/me', me).middleware('unified').name('v1.me')
}
