import { h } from './dom.js'
import { rowName, type View } from './state.js'

/** One tab of the bar: when it is shown, what its button counts, when it is red, its panel. */
export interface Tab {
  readonly id: string
  readonly label: string
  visible(view: View): boolean
  render(view: View): Node
  count?(view: View): string | undefined
  alert?(view: View): boolean
  /** Unix seconds at which `alert` may change by itself (the Auth tab's token expiry). */
  expiry?(view: View): number | undefined
  /** Re-render the open panel when requests arrive. Default true; forms (API) say false. */
  readonly live?: boolean
}

/** The selected request's name over a tab's panel; nothing while no request is selected. */
export function heading(view: View): HTMLElement | null {
  return view.current === null ? null : h('p', { class: 'note' }, rowName(view.current))
}

/**
 * `visible` and `count` of a tab over one list of the selected request: shown while the list has
 * items, their number on the tab's button (the Jobs, Uploads and Views tabs).
 */
export function listed(
  list: (view: View) => readonly unknown[] | undefined,
): Pick<Tab, 'visible' | 'count'> {
  return {
    visible: (v) => (list(v)?.length ?? 0) > 0,
    count: (v) => String(list(v)?.length ?? 0),
  }
}
