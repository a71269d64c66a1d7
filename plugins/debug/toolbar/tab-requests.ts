// The requests tab: every request the page made, newest first, with the timeline above (oldest
// first on one time axis). Clicking a row or a bar selects it; clicking it again releases it.
// A row with a request id offers the server's log lines for it (the dev panel).
import { unwrappedFetch } from './capture.js'
import { h, ms, note, table, text } from './dom.js'
import { failed, type Row } from './payload.js'
import { rowName, type View } from './state.js'
import type { Tab } from './tab.js'

interface LogLines {
  state: 'loading' | 'done' | 'failed'
  lines: { timestamp?: string; level?: string; message?: string }[]
  message?: string
}
/** Server log lines per request id, fetched once each. */
const logs = new Map<string, LogLines>()
/** The dev panel's 404 is reported once; then the offer stops. */
let panelGone: string | null = null

/**
 * Whether the server log is offered: the dev panel answered no 404, and the newest payload that
 * knows says this user may read it (a guest, or a user below the panel's usertype, gets 403).
 */
function logsOffered(view: View): boolean {
  if (view.logOffer === 'off') return false
  for (let i = view.rows.length - 1; i >= 0; i--) {
    const known = view.rows[i]!.payload?.devpanel
    if (typeof known === 'boolean') return known
  }
  return false
}

function askLog(view: View, row: Row): void {
  const id = row.id
  if (id === null || logs.get(id)?.state === 'loading' || !logsOffered(view)) return
  logs.set(id, { state: 'loading', lines: [] })
  view.refresh()
  const base = view.config.devpanel ?? '/devpanel/logs'
  // The unwrapped fetch: asking for the log must not add a row of its own.
  unwrappedFetch(`${base}?request=${encodeURIComponent(id)}`, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  })
    .then(async (res) => {
      if (res.status === 404) {
        view.logOffer = 'off'
        panelGone = `The dev panel answered 404 at ${base} (is the DevPanel feature on?); server logs are no longer offered.`
        logs.delete(id)
        return
      }
      const body = (await res.json().catch(() => ({}))) as {
        lines?: LogLines['lines']
        error?: string
      }
      if (!res.ok)
        logs.set(id, { state: 'failed', lines: [], message: body.error ?? `HTTP ${res.status}` })
      else logs.set(id, { state: 'done', lines: Array.isArray(body.lines) ? body.lines : [] })
    })
    .catch((error: unknown) => logs.set(id, { state: 'failed', lines: [], message: String(error) }))
    .finally(() => view.refresh())
}

function timeline(view: View): HTMLElement {
  // Oldest first by start: rows are numbered as requests finish, so overlapping requests that
  // finish out of order would otherwise be drawn out of order.
  const rows = view.rows
    .filter((r) => r.end !== null)
    .sort((a, b) => a.start - b.start || a.n - b.n)
  const t0 = Math.min(...rows.map((r) => r.start))
  const t1 = Math.max(...rows.map((r) => r.end!))
  const span = Math.max(t1 - t0, 1)
  return h(
    'div',
    {
      class: 'timeline',
      'data-timeline': true,
      'aria-label': `Timeline: ${rows.length} requests over ${ms(span)}`,
    },
    rows.map((r) => {
      const bar = h('button', {
        class: `tbar${failed(r) ? ' failed' : ''}`,
        type: 'button',
        'data-bar': r.n,
        'data-key': `bar:${r.n}`,
        'aria-pressed': view.selected === r ? 'true' : 'false',
        title: `${rowName(r)} · ${r.status ?? 'failed'}${r.ms === null ? '' : ` · ${ms(r.ms)}`}`,
        'aria-label': `${rowName(r)}, ${r.status ?? 'failed'}`,
        'on:click': () => view.select(r),
      })
      // Geometry through the CSSOM: allowed under a CSP that forbids style attributes.
      bar.style.left = `${((r.start - t0) / span) * 100}%`
      bar.style.width = `${Math.max(((r.end! - r.start) / span) * 100, 0.4)}%`
      return h('div', { class: 'lane' }, bar)
    }),
  )
}

/** A path as people read it: percent-escapes decoded where that is possible. */
function readable(path: string): string {
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}

function status(r: Row): string {
  if (r.status === null) return r.failure === undefined ? 'failed' : `failed (${r.failure})`
  return String(r.status)
}

/** A row's "server log" button: only for a row with a request id, while the log is offered. */
function logButton(view: View, r: Row, offered: boolean): HTMLElement | null {
  return r.id !== null && offered
    ? h(
        'button',
        {
          class: 'small',
          type: 'button',
          'data-log': r.id,
          'data-key': `log:${r.n}`,
          'on:click': () => askLog(view, r),
        },
        'server log',
      )
    : null
}

/** The path cell: a button that selects the row for the keyboard, and the page's own mark. */
function pathCell(view: View, r: Row): HTMLElement {
  return h(
    'td',
    null,
    h(
      'button',
      {
        class: 'pick mono',
        type: 'button',
        'data-key': `row:${r.n}`,
        'aria-pressed': view.selected === r ? 'true' : 'false',
        title: `${r.path}\n(click to select this request, again to release)`,
        'on:click': () => view.select(r),
      },
      readable(r.path),
    ),
    r.own ? h('span', { class: 'count' }, 'this page') : null,
  )
}

/** One request's row of the list (requests.test.ts: "the whole row selects: …"). */
function requestRow(view: View, r: Row, offered: boolean): HTMLElement {
  const queries = r.payload?.queries?.count ?? r.summary?.queries
  const button = logButton(view, r, offered)
  return h(
    'tr',
    {
      class: failed(r) ? 'failed' : '',
      'data-row': r.n,
      'aria-selected': view.selected === r ? 'true' : 'false',
      // The whole row selects, as in every network panel: a click on a cell that is not a
      // control of its own (the path button selects for the keyboard, the log button asks
      // for the server log), and not the end of a text selection.
      'on:click': (event: Event) => {
        if ((event.target as Element).closest('button, a, input, select, textarea')) return
        if ((window.getSelection()?.toString() ?? '') !== '') return
        view.select(r)
      },
    },
    h('td', { class: 'num' }, String(r.n)),
    h('td', null, r.method),
    pathCell(view, r),
    h('td', null, status(r)),
    h('td', { class: 'num' }, r.ms === null ? '' : ms(r.ms)),
    h('td', { class: 'num' }, queries === undefined ? '' : String(queries)),
    h('td', { class: 'mono' }, r.id ?? '', ' ', button),
  )
}

/** The server log lines fetched for one request id, or where the fetch stands. */
function serverLog(id: string, l: LogLines): HTMLElement {
  return h(
    'section',
    { 'data-serverlog': id },
    h('h3', null, `Server log for ${id}`),
    l.state === 'loading'
      ? note('Loading…')
      : l.state === 'failed'
        ? note(`Could not read the log: ${l.message ?? ''}`)
        : l.lines.length === 0
          ? note('No log lines carry this request id.')
          : table(
              ['Time', 'Level', 'Message'],
              l.lines.map((x) => [x.timestamp ?? '', x.level ?? '', text(x.message ?? '')]),
            ),
  )
}

export const REQUESTS: Tab = {
  id: 'requests',
  label: 'Requests',
  visible: (v) => v.rows.length > 0,
  count: (v) => String(v.rows.length),
  alert: (v) => v.rows.some(failed),
  render(view) {
    const newest = [...view.rows].reverse()
    const list = table(
      ['#', 'Method', 'Path', 'Status', 'Time', 'Queries', 'Request id'],
      [],
      'requests',
    )
    const tbody = list.querySelector('tbody')!
    const offered = logsOffered(view)
    for (const r of newest) tbody.appendChild(requestRow(view, r, offered))
    const shown = [...logs.entries()].filter(([id]) => view.rows.some((r) => r.id === id))
    return h(
      'div',
      null,
      view.rows.some((r) => r.end !== null) ? timeline(view) : null,
      list,
      panelGone === null ? null : note(panelGone),
      shown.map(([id, l]) => serverLog(id, l)),
    )
  },
}
