import type { FwConfig } from '../config.js'
import type { HeaderValue } from '../reply.js'

/**
 * The headers every response carries (`always`), those only HTML pages carry (`html`) and those
 * only responses to HTTPS requests carry (`https`), resolved once from `http.security_headers`
 * when the server starts. An empty value in the config leaves a header out.
 */
export interface SecurityHeaders {
  readonly always: readonly (readonly [name: string, value: string])[]
  readonly html: readonly (readonly [name: string, value: string])[]
  readonly https: readonly (readonly [name: string, value: string])[]
}

/** What `http.security_headers` holds. */
export type SecurityHeadersConfig = FwConfig['http']['security_headers']

/** Resolves the config into the two header sets. */
export function securityHeaders(config: SecurityHeadersConfig): SecurityHeaders {
  const always: [string, string][] = []
  const html: [string, string][] = []
  const set = (into: [string, string][], name: string, value: string | undefined): void => {
    if (value !== undefined && value !== '') into.push([name, value])
  }
  set(always, 'x-content-type-options', config.content_type_options)
  set(html, 'x-frame-options', config.frame_options)
  set(html, 'referrer-policy', config.referrer_policy)
  set(html, 'content-security-policy', config.content_security_policy)
  const https: [string, string][] = []
  set(https, 'strict-transport-security', hstsValue(config.hsts))
  return { always, html, https }
}

/** `Strict-Transport-Security`'s value, or undefined while `max_age` is 0. */
function hstsValue(hsts: SecurityHeadersConfig['hsts']): string | undefined {
  if (hsts.max_age <= 0) return undefined
  return `max-age=${hsts.max_age}${hsts.include_subdomains ? '; includeSubDomains' : ''}${hsts.preload ? '; preload' : ''}`
}

/** Tells whether the request came over HTTPS (TLS, or a trusted proxy's `X-Forwarded-Proto`). */
export interface SecureQuery {
  secure(): boolean
}

/** A request that did not come over HTTPS (tests of the serialiser alone). */
export const PLAIN_REQUEST: SecureQuery = { secure: () => false }

/** No header at all: what `serialize` applies when given none (tests of the serialiser alone). */
export const NO_SECURITY_HEADERS: SecurityHeaders = { always: [], html: [], https: [] }

/**
 * Appends to `headers` (a flat list of names and values) the security headers the reply's own
 * headers (`own`) do not set: a page that must be framed by its own origin sets
 * `X-Frame-Options: SAMEORIGIN` itself. The HTML ones go with a `text/html` `type` only, the HTTPS
 * ones when `request.secure()` says the request came over HTTPS (asked only when there are some).
 */
export function addSecurityHeaders(
  headers: HeaderValue[],
  own: Readonly<Record<string, HeaderValue>>,
  type: HeaderValue | undefined,
  set: SecurityHeaders,
  request: SecureQuery,
): void {
  for (const [name, value] of set.always) if (own[name] === undefined) headers.push(name, value)
  if (set.https.length !== 0 && request.secure())
    for (const [name, value] of set.https) if (own[name] === undefined) headers.push(name, value)
  if (set.html.length === 0 || typeof type !== 'string' || !type.startsWith('text/html')) return
  for (const [name, value] of set.html) if (own[name] === undefined) headers.push(name, value)
}
