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

/** One row per stream, refusal and publication: what, channel, detail, id, size, reach, when. */
function rows(rt: Realtime): { at: number; cells: Child[] }[] {
  const out: { at: number; cells: Child[] }[] = []
  for (const s of rt.subscribed ?? [])
    out.push({
      at: s.at ?? 0,
      cells: [
        'subscribed',
        s.channel ?? '',
        s.reset === true ? 'reset (fw-reset)' : s.resumed === true ? 'resumed' : 'new stream',
        '',
        `${s.replayed ?? 0} replayed`,
        '',
        ms(s.at ?? 0),
      ],
    })
  for (const f of rt.refused ?? [])
    out.push({
      at: f.at ?? 0,
      cells: [
        h('span', { class: 'bad' }, 'refused'),
        f.channel ?? '',
        f.reason ?? '',
        '',
        '',
        '',
        ms(f.at ?? 0),
      ],
    })
  for (const p of rt.published ?? [])
    out.push({
      at: p.at ?? 0,
      cells: [
        'published',
        p.channel ?? '',
        p.event ?? '',
        p.id ?? '',
        `${p.bytes ?? 0} B`,
        p.shared === true ? 'every instance' : 'this process',
        ms(p.at ?? 0),
      ],
    })
  return out.sort((a, b) => a.at - b.at)
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
