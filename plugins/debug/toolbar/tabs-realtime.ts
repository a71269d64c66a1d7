// The Realtime tab: the streams the selected request opened or was refused and the events it
// published (the realtime plugin's `realtime.*` events, projected under `realtime`), in time order.
import { h, ms, table, type Child } from './dom.js'
import type { Payload } from './payload.js'
import type { View } from './state.js'
import { panel, type Tab } from './tab.js'

type Realtime = NonNullable<Payload['realtime']>

const r = (v: View): Realtime | null => v.current?.payload?.realtime ?? null

const total = (rt: Realtime | null): number =>
  (rt?.subscribed?.length ?? 0) + (rt?.published?.length ?? 0) + (rt?.refused?.length ?? 0)

/** A row of the table: what, channel, detail, id, size, reach, then when (by which rows sort). */
function row(at: number | undefined, cells: Child[]): { at: number; cells: Child[] } {
  return { at: at ?? 0, cells: [...cells, ms(at ?? 0)] }
}

/** One row per stream, refusal and publication, in time order. */
function rows(rt: Realtime): { at: number; cells: Child[] }[] {
  const subscribed = (rt.subscribed ?? []).map((s) => {
    const how =
      s.reset === true ? 'reset (fw-reset)' : s.resumed === true ? 'resumed' : 'new stream'
    return row(s.at, ['subscribed', s.channel ?? '', how, '', `${s.replayed ?? 0} replayed`, ''])
  })
  const refused = (rt.refused ?? []).map((f) =>
    row(f.at, [
      h('span', { class: 'bad' }, 'refused'),
      f.channel ?? '',
      f.reason ?? '',
      '',
      '',
      '',
    ]),
  )
  const published = (rt.published ?? []).map((p) => {
    const reach = p.shared === true ? 'every instance' : 'this process'
    return row(p.at, [
      'published',
      p.channel ?? '',
      p.event ?? '',
      p.id ?? '',
      `${p.bytes ?? 0} B`,
      reach,
    ])
  })
  return [...subscribed, ...refused, ...published].sort((a, b) => a.at - b.at)
}

export const REALTIME: Tab = {
  id: 'realtime',
  label: 'Realtime',
  visible: (v) => total(r(v)) > 0,
  count: (v) => String(total(r(v))),
  alert: (v) => (r(v)?.refused?.length ?? 0) > 0,
  render: (v) =>
    panel(
      v,
      table(
        ['', 'Channel', 'Event', 'Id', 'Size', 'Reaches', 'At'],
        rows(r(v)!).map((row) => row.cells),
        'realtime',
      ),
    ),
}
