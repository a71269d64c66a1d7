import type { ParsedRoute } from './parse-route.js'
import { describeRoute } from './parse-route.js'
import { routerErrors } from './router-error.js'

/** Values accepted for placeholders and query parameters when generating a URL. */
export type UrlValues = Readonly<Record<string, string | number>>

/**
 * Builds `/products/5` from a parsed route: placeholders filled (percent-encoded), an omitted
 * optional last placeholder dropped, values that fill no placeholder appended as query parameters
 * after the route's own query form and before `query`.
 */
export function buildUrl(
  parsed: ParsedRoute,
  params: UrlValues = {},
  query: UrlValues = {},
): string {
  const used = new Set<string>()
  const segments: string[] = []
  for (const token of parsed.tokens) {
    if (token.kind === 'static') {
      segments.push(encodeURIComponent(token.value))
      continue
    }
    used.add(token.name)
    const value = Object.hasOwn(params, token.name) ? params[token.name] : undefined
    if (value === undefined || value === '') {
      if (token.optional) continue
      const { route } = parsed
      throw routerErrors.error('FW_ERR_ROUTER_MISSING_PARAM', {
        name: route.name ?? route.path,
        route: describeRoute(route),
        param: token.name,
      })
    }
    segments.push(encodeURIComponent(String(value)))
  }
  const search = new URLSearchParams(parsed.route.query ?? '')
  for (const [key, value] of Object.entries(params))
    if (!used.has(key)) search.append(key, String(value))
  for (const [key, value] of Object.entries(query)) search.append(key, String(value))
  const qs = search.toString()
  return `/${segments.join('/')}${qs === '' ? '' : `?${qs}`}`
}
