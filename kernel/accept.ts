// Reading `Accept` for the one question the kernel asks of it: JSON or an HTML page. A browser
// may list `application/json` after `text/html` with a lower quality; naming JSON is then not
// asking for it.

/** The quality (`q`) of one media range of `Accept`: 1 when none is given. */
function quality(params: string): number {
  const q = /(?:^|;)\s*q\s*=\s*([0-9.]+)/i.exec(params)?.[1]
  const value = q === undefined ? 1 : Number(q)
  return Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 1
}

/** The highest quality `Accept` (lower-cased) gives `application/json` and `text/html`; 0 when unnamed. */
function qualities(lower: string): { json: number; html: number } {
  let json = 0
  let html = 0
  for (const range of lower.split(',')) {
    const semi = range.indexOf(';')
    const type = (semi === -1 ? range : range.slice(0, semi)).trim()
    const params = semi === -1 ? '' : range.slice(semi + 1)
    if (type === 'application/json') json = Math.max(json, quality(params))
    else if (type === 'text/html') html = Math.max(html, quality(params))
  }
  return { json, html }
}

/**
 * True when an `Accept` header asks for JSON: it names `application/json` with a quality above 0,
 * and names `text/html` with no higher quality (a tie is JSON). Wildcards do not count.
 */
export function acceptsJsonFirst(accept: string): boolean {
  const lower = accept.toLowerCase()
  if (!lower.includes('application/json')) return false
  // The common shapes (`application/json`, `application/json, text/plain`) need no parsing.
  if (!lower.includes('text/html') && !lower.includes('q=')) return true
  const { json, html } = qualities(lower)
  return json > 0 && json >= html
}

/**
 * True when an `Accept` header names `text/html` with a quality above 0 and ranks it above
 * `application/json` (a tie is JSON). Wildcards do not count: `*\/*` prefers nothing.
 */
export function ranksHtmlFirst(accept: string): boolean {
  const lower = accept.toLowerCase()
  if (!lower.includes('text/html')) return false
  const { json, html } = qualities(lower)
  return html > 0 && html > json
}
