// Tabs that show one request's server-side data: the selected request, else the default one
// (the page's own on a server-rendered page, the newest in an app). Auth follows the newest
// request that reports an identity unless one is selected.
import { dl, h, ms, note, table, text } from './dom.js'
import { has, type Payload, type Row } from './payload.js'
import { rowName, type View } from './state.js'
import { listTab, panel, type Tab } from './tab.js'

const p = (v: View): Payload | null => v.current?.payload ?? null

export const SQL: Tab = {
  id: 'sql',
  label: 'SQL',
  visible: (v) => (p(v)?.queries?.count ?? 0) > 0,
  count: (v) => String(p(v)?.queries?.count ?? 0),
  render(v) {
    const q = p(v)!.queries!
    const statements = q.statements ?? []
    return panel(
      v,
      h(
        'p',
        null,
        `${q.count} ${q.count === 1 ? 'statement' : 'statements'}`,
        q.total_ms === undefined ? '' : ` in ${ms(q.total_ms)}`,
        q.truncated ? ` (the first ${statements.length} are kept)` : '',
      ),
      table(
        ['#', 'SQL', 'Parameters', 'Rows', 'Time'],
        statements.map((s, i) => [
          String(i + 1),
          h('code', { class: s.failed ? 'bad' : '' }, s.sql),
          s.params === undefined || s.params.length === 0 ? '' : h('code', null, text(s.params)),
          s.rows === null || s.rows === undefined ? '' : String(s.rows),
          s.ms === undefined ? '' : ms(s.ms),
        ]),
        'sql',
      ),
    )
  },
}

/** Client time, server time and the SQL share; each absent (not zero) when its input is missing. */
export function timeFigures(row: Row): {
  client?: number
  server?: number
  remainder?: number
  sql?: number
  share?: number
} {
  const out: {
    client?: number
    server?: number
    remainder?: number
    sql?: number
    share?: number
  } = {}
  const server = row.payload?.time ?? row.summary?.time
  if (row.ms !== null) out.client = row.ms
  if (typeof server === 'number') out.server = server
  if (out.client !== undefined && out.server !== undefined)
    out.remainder = Math.max(out.client - out.server, 0)
  const sql = row.payload?.queries?.total_ms
  if (typeof sql === 'number') out.sql = sql
  if (out.sql !== undefined && out.server !== undefined && out.server > 0)
    out.share = out.sql / out.server
  return out
}

export const TIME: Tab = {
  id: 'time',
  label: 'Time',
  visible: (v) =>
    v.current !== null &&
    (v.current.ms !== null ||
      typeof (v.current.payload?.time ?? v.current.summary?.time) === 'number'),
  count: (v) => {
    const f = v.current === null ? {} : timeFigures(v.current)
    const t = f.client ?? f.server
    return t === undefined ? undefined : ms(t)
  },
  alert: (v) => v.current !== null && (timeFigures(v.current).share ?? 0) > 0.5,
  render(v) {
    const f = timeFigures(v.current!)
    const timing = p(v)?.timing
    const share =
      f.share === undefined
        ? undefined
        : h(
            'span',
            { class: f.share > 0.5 ? 'bad' : '', 'data-share': true },
            `${Math.round(f.share * 100)}% of server time`,
          )
    return panel(
      v,
      dl([
        [
          'Client time',
          f.client === undefined ? undefined : h('span', { 'data-figure': 'client' }, ms(f.client)),
        ],
        [
          'Server time',
          f.server === undefined ? undefined : h('span', { 'data-figure': 'server' }, ms(f.server)),
        ],
        [
          'Remainder (network, queueing, browser)',
          f.remainder === undefined
            ? undefined
            : h('span', { 'data-figure': 'remainder' }, ms(f.remainder)),
        ],
        [
          'SQL',
          f.sql === undefined
            ? undefined
            : h(
                'span',
                { 'data-figure': 'sql' },
                ms(f.sql),
                share === undefined ? '' : ' · ',
                share ?? '',
              ),
        ],
      ]),
      f.server === undefined
        ? note('The server reported no time for this request, so only the client figure is shown.')
        : null,
      f.client === undefined ? note('The browser measured no client time for this request.') : null,
      timing !== undefined && has(p(v), 'timing') && Object.keys(timing).length > 0
        ? [
            h('h3', null, 'Phases'),
            table(
              ['Phase', 'Time'],
              Object.entries(timing).map(([k, t]) => [k, typeof t === 'number' ? ms(t) : text(t)]),
            ),
          ]
        : null,
    )
  },
}

export const ROUTE: Tab = {
  id: 'route',
  label: 'Route',
  visible: (v) => has(p(v), 'route'),
  render(v) {
    const r = p(v)!.route!
    if (r.missed)
      return panel(
        v,
        note(`No route matched ${r.method ?? ''} ${r.path ?? ''}.`),
        r.allowed !== undefined && r.allowed.length > 0
          ? dl([['Allowed', r.allowed.join(', ')]])
          : null,
      )
    return panel(
      v,
      dl([
        ['Method', r.method],
        ['Path', r.path === undefined ? undefined : h('code', null, r.path)],
        ['Name', r.name ?? undefined],
        ['Handler', r.handler],
        [
          'Parameters',
          r.params !== undefined && Object.keys(r.params).length > 0
            ? h('code', null, text(r.params))
            : undefined,
        ],
      ]),
    )
  },
}

/** The row Auth shows: the selected one, else the newest that reports an identity. */
function authRow(v: View): Row | null {
  if (v.selected !== null) return has(v.selected.payload, 'auth') ? v.selected : null
  for (let i = v.rows.length - 1; i >= 0; i--)
    if (has(v.rows[i]!.payload, 'auth')) return v.rows[i]!
  return null
}

const expired = (exp: number | null | undefined): boolean =>
  typeof exp === 'number' && exp * 1000 <= Date.now()

export const AUTH: Tab = {
  id: 'auth',
  label: 'Auth',
  visible: (v) => authRow(v) !== null,
  count: (v) => {
    const a = authRow(v)?.payload?.auth
    return a?.user?.username ?? (a === undefined ? undefined : 'anonymous')
  },
  alert: (v) => expired(authRow(v)?.payload?.auth?.expires),
  expiry: (v) => authRow(v)?.payload?.auth?.expires ?? undefined,
  render(v) {
    const row = authRow(v)!
    const a = row.payload!.auth!
    const exp = a.expires
    return h(
      'div',
      null,
      h('p', { class: 'note' }, rowName(row)),
      dl([
        [
          'Who',
          a.user === null || a.user === undefined
            ? 'anonymous (nobody is signed in)'
            : `${a.user.username} (id ${a.user.id}${a.user.usertype === undefined ? '' : `, type ${a.user.usertype}`})`,
        ],
        ['Credential', a.credential ?? undefined],
        ['From', a.source ?? undefined],
        ['Action', a.action],
        ['Refused', a.refused === undefined ? undefined : h('span', { class: 'bad' }, a.refused)],
        [
          'Expires',
          exp === undefined
            ? undefined
            : exp === null
              ? 'never'
              : h(
                  'span',
                  { class: expired(exp) ? 'bad' : '', 'data-expiry': true },
                  `${new Date(exp * 1000).toISOString()}${expired(exp) ? ' (expired)' : ''}`,
                ),
        ],
        ['Claims', a.claims === undefined ? undefined : h('code', null, text(a.claims))],
      ]),
    )
  },
}

export const SESSION: Tab = {
  id: 'session',
  label: 'Session',
  visible: (v) => {
    const s = p(v)?.session
    return (
      s !== undefined &&
      has(p(v), 'session') &&
      (Object.keys(s.cookies ?? {}).length > 0 || (s.data !== undefined && s.data !== null))
    )
  },
  render(v) {
    const s = p(v)!.session!
    const cookies = Object.keys(s.cookies ?? {})
    return panel(
      v,
      h('h3', null, 'Cookies'),
      cookies.length === 0
        ? note('None sent.')
        : table(
            ['Name', 'Value'],
            cookies.map((c) => [c, s.cookies![c]!]),
          ),
      s.data === undefined
        ? null
        : [h('h3', null, 'Session data'), h('pre', null, JSON.stringify(s.data, null, 2))],
    )
  },
}

export const VIEWS: Tab = listTab('views', 'Views', (views) =>
  table(
    ['Template', 'File', 'Time'],
    views.map((x) => [
      x.template ?? '',
      h('code', null, x.file ?? ''),
      x.ms === undefined ? '' : ms(x.ms),
    ]),
  ),
)

export const DOMAIN: Tab = {
  id: 'domain',
  label: 'Domain',
  visible: (v) => (p(v)?.models?.length ?? 0) + (p(v)?.services?.length ?? 0) > 0,
  count: (v) => String((p(v)?.models?.length ?? 0) + (p(v)?.services?.length ?? 0)),
  render(v) {
    const models = p(v)!.models ?? []
    const services = p(v)!.services ?? []
    return panel(
      v,
      h('h3', null, 'Models'),
      models.length === 0
        ? note('No model was loaded, saved or deleted.')
        : table(
            ['Action', 'Entity', 'Id'],
            models.map((m) => [m.action ?? '', m.entity ?? '', text(m.id)]),
            'models',
          ),
      h('h3', null, 'Services'),
      services.length === 0
        ? note('No service was recorded.')
        : table(
            ['Service', 'Constructed', 'Calls', 'Time', 'Failed'],
            services.map((s) => [
              s.name,
              s.constructed ? 'yes' : '',
              s.calls === undefined ? '' : String(s.calls),
              s.ms === undefined ? '' : ms(s.ms),
              s.failed === undefined ? '' : h('span', { class: 'bad' }, String(s.failed)),
            ]),
            'services',
          ),
      services.some((s) => s.calls === undefined)
        ? note('A call gets a duration only when its work is wrapped in measure(name, fn).')
        : null,
    )
  },
}

export const MIGRATIONS: Tab = {
  id: 'migrations',
  label: 'Migrations',
  // Shown while something is pending (what a developer must act on), counting the pending ones;
  // the panel lists every migration with its state.
  visible: (v) => (p(v)?.migrations ?? []).some((m) => m.executed_at === null),
  count: (v) => String((p(v)?.migrations ?? []).filter((m) => m.executed_at === null).length),
  alert: () => true,
  render: (v) => {
    const all = p(v)!.migrations!
    const pending = all.filter((m) => m.executed_at === null).length
    const list = table(['Migration', 'State'], [], 'migrations')
    const tbody = list.querySelector('tbody')!
    for (const m of all) {
      const waiting = m.executed_at === null
      tbody.appendChild(
        h(
          'tr',
          { class: waiting ? 'failed' : '', 'data-pending': waiting ? 'true' : 'false' },
          h('td', { class: 'mono' }, m.name ?? text(m)),
          h('td', null, waiting ? 'pending' : `ran ${m.executed_at ?? ''}`),
        ),
      )
    }
    return panel(v, pending > 0 ? note(`${pending} pending: run fw migrate`) : null, list)
  },
}
