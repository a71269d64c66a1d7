// The injected API prefix (README.md "The injected API prefix"): `<meta name="fw-api-prefix">` in
// every HTML page, which the client `fw create:api-client` writes reads when it has no base URL.
import { escapeHtml, type Kernel, type Reply } from 'fw'

/** The element's name: the generated client looks it up by this. */
export const PREFIX_META = 'fw-api-prefix'

const HEAD_END = /<\/head>/i

/** `/api/v1` and the like: one or more path segments, no query, no trailing slash needed. */
export function checkPrefix(value: string): string | undefined {
  return value === '' || /^(\/[A-Za-z0-9._~-]+)+\/?$/.test(value)
    ? undefined
    : 'give a path such as /api/v1 (segments of letters, digits, ".", "_", "~" or "-"), or "" for none'
}

/**
 * Puts the prefix before the page's `</head>` (render stage 50, after the views), once: a page
 * that already names one keeps its own. A synchronous tap: other replies pass with no promise.
 */
export function tapPrefixMeta(kernel: Kernel, prefix: string): void {
  const tag = `<meta name="${PREFIX_META}" content="${escapeHtml(prefix.replace(/\/+$/, ''))}">\n`
  kernel.hooks.render.tap({ name: 'api.prefix-meta', stage: 50 }, (reply: Reply) => {
    if (reply.body.kind !== 'html') return reply
    const html = reply.body.value
    const match = HEAD_END.exec(html)
    if (match === null || html.includes(`name="${PREFIX_META}"`)) return reply
    reply.body = { kind: 'html', value: html.slice(0, match.index) + tag + html.slice(match.index) }
    return reply
  })
}
