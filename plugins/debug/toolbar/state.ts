// What the bar knows: the rows (oldest first), the selection, the client-side errors. Tabs read
// it through a View; only the bar changes it.
import type { Row, ToolbarConfig } from './payload.js'

/** A client-side failure: a window error, an unhandled rejection, or one reported by the app. */
export interface ClientError {
  kind: string
  message: string
  stack: string
  /** The newest request at the time it happened. */
  after: Row | null
  count: number
}

export interface View {
  readonly rows: readonly Row[]
  /** The selected row, else the default: the page's own request, or the newest in an app. */
  readonly current: Row | null
  readonly selected: Row | null
  readonly errors: readonly ClientError[]
  readonly config: ToolbarConfig
  /** True for the ES module delivery (a single-page application). */
  readonly spa: boolean
  /** Whether the dev panel's log endpoint is still offered (it stops after a 404). */
  logOffer: 'on' | 'off'
  select(row: Row | null): void
  /** Re-renders the open panel. */
  refresh(): void
}

/** `#3 GET /api/v1/products?x` — how a row is named in other tabs. */
export function rowName(row: Row): string {
  return `#${row.n} ${row.method} ${row.path}`
}
