// The HTML pages when the app has no `health` / `health-phpinfo` template (or no views plugin):
// small, self-contained, everything escaped.
import { escapeHtml } from 'fw'
import type { InfoSection } from './runtime-info.js'
import type { HealthReport } from './types.js'

/** What the dashboard template gets as `it`. */
export interface DashboardData {
  [key: string]: unknown
  title: string
  service: string
  report: HealthReport
  rows: { name: string; status: string; message: string; details: string; checked_at: string }[]
  generated_at: string
  user: string
}

/** The rows of the dashboard: one per check, details as `key=value` pairs. */
export function dashboardRows(report: HealthReport): DashboardData['rows'] {
  return Object.values(report.checks).map((c) => {
    const { checked_at, ...rest } = c.details ?? {}
    return {
      name: c.name,
      status: c.status,
      message: c.message,
      details: formatDetails(rest),
      checked_at: typeof checked_at === 'string' ? checked_at : '',
    }
  })
}

/** Details as `key=value, …` (objects as JSON). */
export function formatDetails(details: Record<string, unknown> | undefined): string {
  if (details === undefined) return ''
  return Object.entries(details)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(', ')
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}.ok{color:#070}.degraded{color:#a60}.down{color:#b00}'

export function renderDashboard(data: DashboardData): string {
  const rows = data.rows
    .map(
      (r) =>
        `<tr><td><code>${escapeHtml(r.name)}</code></td><td class="${escapeHtml(r.status)}">${escapeHtml(r.status)}</td><td>${escapeHtml(r.message)}</td><td><small>${escapeHtml(r.details)}</small></td><td><small>${escapeHtml(r.checked_at)}</small></td></tr>`,
    )
    .join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Health · ${escapeHtml(data.service)}</title><style>${STYLE}</style></head><body>
<h1>Health of ${escapeHtml(data.service)}: <span class="${escapeHtml(data.report.status)}">${escapeHtml(data.report.status)}</span></h1>
<table><tr><th>Check</th><th>Status</th><th>Message</th><th>Details</th><th>Checked at</th></tr>
${rows}
</table>
<p><small>Generated ${escapeHtml(data.generated_at)} for ${escapeHtml(data.user)}. JSON: <a href="/health/check">/health/check</a>, <a href="/health/status">/health/status</a>.</small></p>
</body></html>`
}

export function renderRuntime(title: string, sections: InfoSection[]): string {
  const body = sections
    .map(
      (s) =>
        `<h2>${escapeHtml(s.title)}</h2><table>${s.rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td><code>${escapeHtml(v)}</code></td></tr>`).join('')}</table>`,
    )
    .join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`
}
