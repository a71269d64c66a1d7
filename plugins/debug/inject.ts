// Delivery into HTML pages: the hidden `fw-debug-data` island holding the payload as JSON, and
// the toolbar's script element, once, before the last `</body>`.
import { escapeHtml } from 'fw'

/** The island's element id (README.md "What an annotated response carries"). */
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

/** What the toolbar's script element carries besides the island. */
export interface ToolbarScript {
  /** The inline classic script (already safe inside `<script>`). */
  readonly code: string
  /** The toolbar's settings, JSON in the element's `data-config`. */
  readonly config: Readonly<Record<string, unknown>>
}

/**
 * The markup injected: the island, then the toolbar's inline script element (with the nonce, if
 * any, and its settings in `data-config`).
 */
export function toolbarMarkup(
  payload: unknown,
  nonce: string | undefined,
  script: ToolbarScript,
): string {
  const n = nonce === undefined || nonce === '' ? '' : ` nonce="${escapeHtml(nonce)}"`
  return (
    `<script type="application/json" id="${ISLAND_ID}" hidden>${islandJson(payload)}</script>` +
    `<script${n} data-config="${escapeHtml(JSON.stringify(script.config))}">${script.code}</script>`
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
