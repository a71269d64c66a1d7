// Delivery into HTML pages: the hidden `fw-debug-data` island holding the payload as JSON, and
// the toolbar's script element, once, before the last `</body>`.
import { escapeHtml } from 'fw'

/** The island's id (spec.md: element id `fw-debug-data`). */
export const ISLAND_ID = 'fw-debug-data'
/** Where the toolbar script is served from. */
export const TOOLBAR_PATH = '/_fw/debugbar.js'

const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

/**
 * JSON safe inside a `<script>` element: `<`, `>`, `&`, U+2028 and U+2029 are written as `\uXXXX`
 * escapes, so no value can close the element or open a comment, and the text stays valid JSON.
 */
export function islandJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c]!)
}

/** The markup injected: the island, then the toolbar's script element (with the nonce, if any). */
export function toolbarMarkup(payload: unknown, nonce: string | undefined): string {
  const n = nonce === undefined || nonce === '' ? '' : ` nonce="${escapeHtml(nonce)}"`
  return (
    `<script type="application/json" id="${ISLAND_ID}" hidden>${islandJson(payload)}</script>` +
    `<script src="${TOOLBAR_PATH}" defer${n}></script>`
  )
}

/** Where the last `</body>` (any case, optional whitespace) starts, or -1. */
export function lastBodyClose(html: string): number {
  const re = /<\/body\s*>/gi
  let at = -1
  let m: RegExpExecArray | null
  while ((m = re.exec(html)) !== null) at = m.index
  return at
}

/**
 * The page with the toolbar injected before its last `</body>`; the page unchanged when it has no
 * `</body>` or already carries the island (idempotent). Never shorter than the input: when
 * something goes wrong the original is returned.
 */
export function injectToolbar(html: string, markup: () => string): string {
  try {
    if (html.includes(`id="${ISLAND_ID}"`)) return html
    const at = lastBodyClose(html)
    if (at === -1) return html
    const out = html.slice(0, at) + markup() + html.slice(at)
    return out.length < html.length ? html : out
  } catch {
    return html
  }
}

/** The placeholder toolbar served at `/_fw/debugbar.js` until the real toolbar lands. */
export const TOOLBAR_STUB = `// fw debug toolbar (placeholder): reads the fw-debug-data island and shows a one-line summary.
(function () {
  try {
    var island = document.getElementById('fw-debug-data')
    if (!island) return
    var data = JSON.parse(island.textContent || '{}')
    var nonce = (document.currentScript && document.currentScript.nonce) || ''
    var style = document.createElement('style')
    if (nonce) style.nonce = nonce
    style.textContent = '#fw-debugbar{position:fixed;right:0;bottom:0;z-index:2147483647;font:12px/1.6 monospace;background:#222;color:#eee;padding:2px 8px;opacity:.85}'
    document.head.appendChild(style)
    var bar = document.createElement('div')
    bar.id = 'fw-debugbar'
    var q = data.queries && typeof data.queries.count === 'number' ? data.queries.count : 0
    var id = data.request && data.request.id ? data.request.id : ''
    bar.textContent = 'fw ' + (data.time || 0) + ' ms · ' + (data.memory || 0) + ' MB · ' + q + ' queries' + (id ? ' · ' + id : '')
    document.body.appendChild(bar)
    window.__fwDebugBar = { data: data }
  } catch (e) {}
})()
`
