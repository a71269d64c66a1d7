import type { View } from './state.js'

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
