import { h, type Child } from './dom.js'
import type { Payload } from './payload.js'
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

/**
 * A tab's panel: the selected request's name (nothing while no request is selected) over what the
 * tab shows of it.
 */
export function panel(view: View, ...children: Child[]): HTMLElement {
  const heading = view.current === null ? null : h('p', { class: 'note' }, rowName(view.current))
  return h('div', null, heading, ...children)
}

/** The payload's keys that hold a list (`jobs`, `uploads`, `views`, …). */
type ListKey = {
  [K in keyof Payload]-?: NonNullable<Payload[K]> extends readonly unknown[] ? K : never
}[keyof Payload]

/**
 * The tab of one list of the selected request, named like its payload key: shown while the list
 * has items, their number on its button, its panel what `render` makes of them (the Jobs, Uploads
 * and Views tabs).
 */
export function listTab<K extends ListKey>(
  key: K,
  label: string,
  render: (items: NonNullable<Payload[K]>, view: View) => Child,
): Tab {
  const items = (v: View) => (v.current?.payload?.[key] ?? []) as NonNullable<Payload[K]>
  return {
    id: key,
    label,
    visible: (v) => items(v).length > 0,
    count: (v) => String(items(v).length),
    render: (v) => panel(v, render(items(v), v)),
  }
}
