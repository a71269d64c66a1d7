// The access token a request carries, found in its headers. Side-effect free (no jsonwebtoken, no
// ORM): the api plugin reads it through `fw/plugins/auth/credentials` without loading the plugin.
import type { RequestContext } from 'fw'
import type { AuthCredential, AuthSource } from './events.js'

/** A token found in a request's headers. */
export interface PresentedToken {
  readonly token: string
  readonly credential: AuthCredential
  readonly source: AuthSource
}

const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i

/**
 * The access token of a request: `Authorization: Bearer …` (scheme case-insensitive), else the
 * `accessToken` header, else the deprecated `userAuth` header.
 */
export function presentedToken(ctx: RequestContext): PresentedToken | undefined {
  const authorization = ctx.header('authorization')
  if (authorization !== undefined) {
    const m = BEARER.exec(authorization)
    if (m) return { token: m[1]!, credential: 'accessToken', source: 'Authorization' }
  }
  const access = ctx.header('accesstoken')?.trim()
  if (access)
    return {
      token: access.replace(/^bearer[ \t]+/i, ''),
      credential: 'accessToken',
      source: 'accessToken',
    }
  const legacy = ctx.header('userauth')?.trim()
  if (legacy)
    return {
      token: legacy.replace(/^bearer[ \t]+/i, ''),
      credential: 'userAuth',
      source: 'userAuth',
    }
  return undefined
}
