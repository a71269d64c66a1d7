// The `realtime` key of the debug payload (`_debug.realtime`, the toolbar's data island): the
// streams the request opened or was refused and the events it published; null when none.
import type { ProjectionInput } from 'fw/plugins/debug'

export function realtimeProjection(i: ProjectionInput): unknown {
  const at = (e: { at: number }) => i.ms(e.at)
  const subscribed = i.of('realtime.subscribed').map((e) => ({ at: at(e), ...e.data }))
  const refused = i.of('realtime.refused').map((e) => ({ at: at(e), ...e.data }))
  const published = i.of('realtime.published').map((e) => ({ at: at(e), ...e.data }))
  if (subscribed.length + refused.length + published.length === 0) return null
  return { subscribed, refused, published }
}
