import type { FwConfig } from '../config.js'
import type { HeaderValue } from '../reply.js'

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
 * Appends to `headers` (a flat list of names and values) the security headers the reply's own
 * headers (`own`) do not set: a page that must be framed by its own origin sets
 * `X-Frame-Options: SAMEORIGIN` itself. The HTML ones go with a `text/html` `type` only.
 */
export function addSecurityHeaders(
  headers: HeaderValue[],
  own: Readonly<Record<string, HeaderValue>>,
  type: HeaderValue | undefined,
  set: SecurityHeaders,
): void {
  for (const [name, value] of set.always) if (own[name] === undefined) headers.push(name, value)
  if (set.html.length === 0 || typeof type !== 'string' || !type.startsWith('text/html')) return
  for (const [name, value] of set.html) if (own[name] === undefined) headers.push(name, value)
}
