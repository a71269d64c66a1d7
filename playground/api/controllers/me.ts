import type { RequestContext } from 'fw'

/**
 * Shows the current identity. `{id, username, email, usertype}` of the bearer token's user, or of
 * the web session's (with its CSRF token).
 */
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
