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

/** The `Authorization` value and the scheme prefix of `scheme`, compiled once per scheme. */
interface SchemePatterns {
  readonly header: RegExp
  readonly prefix: RegExp
}

const patterns = new Map<string, SchemePatterns>()

function patternsOf(scheme: string): SchemePatterns {
  let found = patterns.get(scheme)
  if (found === undefined) {
    // The config rule admits only an RFC 7235 token, which holds no RegExp syntax but `.`, `$`,
    // `*`, `+`, `^`, `|`, escaped here.
    const name = scheme.replace(/[.*+^$|\\]/g, '\\$&')
    found = {
      header: new RegExp(`^${name}[ \\t]+([^\\s]+)[ \\t]*$`, 'i'),
      prefix: new RegExp(`^${name}[ \\t]+`, 'i'),
    }
    patterns.set(scheme, found)
  }
  return found
}

/** The headers that carry a bare token, in the order asked, with what each is reported as. */
const TOKEN_HEADERS = [
  ['accesstoken', 'accessToken'],
  ['userauth', 'userAuth'],
] as const

/**
 * The access token of a request: `Authorization: <scheme> …` (config `auth.token_scheme`,
 * `Bearer` by default or without the auth plugin; the scheme case-insensitive), else the
 * `accessToken` header, else the deprecated `userAuth` header (either may carry the scheme in
 * front of the token).
 */
export function presentedToken(ctx: RequestContext): PresentedToken | undefined {
  const config = ctx.kernel.config as { auth?: { token_scheme?: string } }
  const { header, prefix } = patternsOf(config.auth?.token_scheme ?? 'Bearer')
  const authorization = ctx.header('authorization')
  if (authorization !== undefined) {
    const m = header.exec(authorization)
    if (m) return { token: m[1]!, credential: 'accessToken', source: 'Authorization' }
  }
  for (const [name, kind] of TOKEN_HEADERS) {
    const value = ctx.header(name)?.trim()
    if (value) return { token: value.replace(prefix, ''), credential: kind, source: kind }
  }
  return undefined
}
