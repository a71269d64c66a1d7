// Logs and Exceptions aggregate every request, with a column naming the request, until one is
// selected; then they narrow to it.
import { folded, h, note, table, text } from './dom.js'
import { raised, type Row } from './payload.js'
import { rowName, type View } from './state.js'
import type { Tab } from './tab.js'

const scope = (v: View): readonly Row[] => (v.selected === null ? v.rows : [v.selected])

function logCount(v: View): number {
  let n = 0
  for (const r of scope(v)) n += r.payload?.logs?.length ?? 0
  return n
}

export const LOGS: Tab = {
  id: 'logs',
  label: 'Logs',
  visible: (v) => logCount(v) > 0,
  count: (v) => String(logCount(v)),
  render(v) {
    const all = v.selected === null
    const rows = []
    for (const r of scope(v))
      for (const [i, l] of (r.payload?.logs ?? []).entries()) {
        const context =
          l.context !== undefined && l.context !== null && Object.keys(l.context).length > 0
            ? folded(text(l.message ?? ''), JSON.stringify(l.context, null, 2), `log:${r.n}:${i}`)
            : text(l.message ?? '')
        const level = h(
          'span',
          { class: l.level === 'error' || l.level === 'fatal' ? 'bad' : '' },
          l.level ?? '',
        )
        rows.push(all ? [rowName(r), level, context] : [level, context])
      }
    return h(
      'div',
      null,
      all ? null : h('p', { class: 'note' }, rowName(v.selected!)),
      table(all ? ['Request', 'Level', 'Message'] : ['Level', 'Message'], rows, 'logs'),
    )
  },
}

const IN_LOG = 'The messages are in the application error log.'

function exceptionRows(v: View, all: boolean) {
  const rows = []
  for (const r of scope(v)) {
    const listed = r.payload?.exceptions ?? []
    for (const e of listed) {
      const detail =
        e.message === undefined || e.message === null || e.message === ''
          ? h('span', { class: 'note' }, IN_LOG)
          : e.message
      const row = [e.name ?? 'Error', detail, e.status === undefined ? '' : String(e.status)]
      rows.push(all ? [rowName(r), ...row] : row)
    }
    // Only the summary header came back (no payload): the count, and where the messages are.
    const unlisted = (r.summary?.errors ?? 0) - listed.length
    if (unlisted > 0) {
      const row = [
        `${unlisted} raised`,
        h('span', { class: 'note' }, IN_LOG),
        r.status === null ? '' : String(r.status),
      ]
      rows.push(all ? [rowName(r), ...row] : row)
    }
  }
  return rows
}

export const EXCEPTIONS: Tab = {
  id: 'exceptions',
  label: 'Exceptions',
  // Shown (and red) while any request raised something, also when the selected one raised
  // nothing: its panel then says so.
  visible: (v) => v.rows.some(raised),
  count: (v) => String(exceptionRows(v, v.selected === null).length),
  alert: (v) => v.rows.some(raised),
  render(v) {
    const all = v.selected === null
    const rows = exceptionRows(v, all)
    return h(
      'div',
      null,
      all ? null : h('p', { class: 'note' }, rowName(v.selected!)),
      rows.length === 0
        ? note('The selected request raised nothing.')
        : table(
            all
              ? ['Request', 'Exception', 'Message', 'Status']
              : ['Exception', 'Message', 'Status'],
            rows,
            'exceptions',
          ),
    )
  },
}
