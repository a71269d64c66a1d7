// The toolbar's host element, `<fw-debugbar>`, pinned to the bottom of the viewport, and whether
// the bar is hidden behind its handle (kept in localStorage).

/** A new host element whose position no page rule can change. */
export function createHost(): HTMLElement {
  const host = document.createElement('fw-debugbar')
  // Inline declarations through the CSSOM (allowed under a CSP, unlike style attributes), marked
  // important so that no page rule can move, hide or restyle the host.
  const s = host.style
  for (const [k, v] of [
    ['position', 'fixed'],
    ['left', '0'],
    ['right', '0'],
    ['bottom', '0'],
    ['z-index', '2147483647'],
    ['display', 'block'],
    ['margin', '0'],
    ['padding', '0'],
    ['top', 'auto'],
    ['width', 'auto'],
    ['height', 'auto'],
    ['max-width', 'none'],
    ['max-height', 'none'],
    ['min-width', '0'],
    ['min-height', '0'],
    ['border', '0'],
    ['transform', 'none'],
    ['opacity', '1'],
    ['visibility', 'visible'],
    ['filter', 'none'],
    ['clip-path', 'none'],
    ['overflow', 'visible'],
  ])
    s.setProperty(k!, v!, 'important')
  return host
}

/** The localStorage key both deliveries keep the hidden state in. */
export const HIDDEN_KEY = 'fw.debugbar.hidden'

export function storedHidden(): boolean {
  try {
    return window.localStorage.getItem(HIDDEN_KEY) === '1'
  } catch {
    return false
  }
}

export function storeHidden(hidden: boolean): void {
  try {
    if (hidden) window.localStorage.setItem(HIDDEN_KEY, '1')
    else window.localStorage.removeItem(HIDDEN_KEY)
  } catch {
    // storage refused (private mode, sandbox): the state lasts for this page only
  }
}
