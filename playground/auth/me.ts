import type { Kernel, RequestContext } from 'fw'

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

/**
 * Declares `GET /api/v1/me` (named `v1.me`) behind CORS, content type and the api plugin's unified
 * middleware (bearer token, else web session + CSRF, else 401).
 */
export function declareMe(kernel: Kernel): void {
  kernel.router.get('api/v1/me', me).middleware('cors', 'contentType', 'unified').name('v1.me')
}
