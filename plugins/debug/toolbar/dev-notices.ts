// What `fw dev` tells an open page, shown by the toolbar: a file that failed to load, as an overlay
// over the page until a save fixes it, and, after a reload, what changed (in the bar's head). The
// page script of `fw dev` (cli/dev/client-script.ts) listens on the reload stream and hands both
// over through `window.__fwDebugBar.dev`; the toolbar knows nothing of the stream.
import { h } from './dom.js'

/** A build of the app that did not load, as `fw dev` sends it. */
export interface DevFailure {
  readonly message: string
  /** The file, relative to the app root, when the error points into the app. */
  readonly file?: string
  readonly line?: number
  readonly column?: number
  /** The lines around the failing one, numbered, with a caret under the column. */
  readonly frame?: string
}

/** A change `fw dev` served before the page reloaded. */
export interface DevChange {
  /** The changed files, relative to the app root. */
  readonly changed: readonly string[]
  /** What was done about them ("app rebuilt, 2 modules re-imported", "served as is"). */
  readonly rebuilt: string
  readonly ms: number
}

/** `window.__fwDebugBar.dev`: what the page script of `fw dev` calls. */
export interface DevNotices {
  /** Shows the failure over the page, or, given null (a save fixed it), takes it away. */
  failure(failure: DevFailure | null): void
  /** Says in the bar what changed and what was done about it. */
  served(change: DevChange): void
}

/** The sentence the bar's head shows after a reload. */
export function changeText(change: DevChange): string {
  const files = change.changed.length > 0 ? change.changed.join(', ') : 'a file'
  return `${files} changed: ${change.rebuilt} (${Math.round(change.ms)} ms)`
}

/** The head's note about the last change (a live region: screen readers hear it once). */
export function changeNote(change: DevChange): HTMLElement {
  return h(
    'span',
    { class: 'devnote', role: 'status', title: 'What fw dev served before this page reloaded' },
    h('b', null, 'reloaded: '),
    changeText(change),
  )
}

/** The overlay for a failed build; `hide` takes it away until the next failure. */
export function failureOverlay(failure: DevFailure, hide: () => void): HTMLElement {
  const where =
    failure.file === undefined
      ? null
      : h('div', { class: 'where mono' }, `${failure.file}:${failure.line}:${failure.column}`)
  return h(
    'div',
    { class: 'devfail', role: 'alert', 'aria-label': 'fw dev: the last save did not load' },
    h(
      'div',
      { class: 'card' },
      h(
        'div',
        { class: 'top' },
        h('span', { class: 'brand' }, 'fw'),
        h('span', { class: 'title' }, 'The last save did not load'),
        h(
          'button',
          {
            class: 'close',
            type: 'button',
            title: 'Hide until the next failure',
            'aria-label': 'Hide this error',
            'on:click': hide,
          },
          '×',
        ),
      ),
      h('p', { class: 'note' }, 'The previous code is still serving; save a fix to go on.'),
      where,
      h('pre', { class: 'message' }, failure.message),
      failure.frame === undefined ? null : h('pre', { class: 'frame' }, failure.frame),
    ),
  )
}
