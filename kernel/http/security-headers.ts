import type { OutgoingHttpHeaders } from 'node:http'
import type { FwConfig } from '../config.js'

/**
 * The headers every response carries (`always`) and those only HTML pages carry (`html`), resolved
 * once from `http.security_headers` when the server starts. An empty value in the config leaves a
 * header out.
 */
export interface SecurityHeaders {
  readonly always: readonly (readonly [name: string, value: string])[]
  readonly html: readonly (readonly [name: string, value: string])[]
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
  return { always, html }
}

/** No header at all: what `serialize` applies when given none (tests of the serialiser alone). */
export const NO_SECURITY_HEADERS: SecurityHeaders = { always: [], html: [] }

/**
 * Adds the security headers to a reply's headers, never replacing one the app set (a page that
 * must be framed by its own origin sets `X-Frame-Options: SAMEORIGIN` itself).
 */
export function applySecurityHeaders(headers: OutgoingHttpHeaders, set: SecurityHeaders): void {
  for (const [name, value] of set.always) headers[name] ??= value
  if (set.html.length === 0) return
  const type = headers['content-type']
  if (typeof type === 'string' && type.startsWith('text/html'))
    for (const [name, value] of set.html) headers[name] ??= value
}
