// The tabs, in the order the bar shows them. Each says when it is shown (only when the data is
// there; Client always), what its button counts, when it is red, and what its panel holds.
import { API } from './tab-api.js'
import { CLIENT, ERRORS } from './tabs-client.js'
import { EXCEPTIONS, LOGS } from './tabs-aggregate.js'
import { REQUESTS } from './tab-requests.js'
import { AUTH, DOMAIN, MIGRATIONS, ROUTE, SESSION, SQL, TIME, VIEWS } from './tabs-server.js'
import { UPLOADS } from './tabs-uploads.js'
import { JOBS } from './tabs-jobs.js'
import type { View } from './state.js'

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

export const TABS: readonly Tab[] = [
  REQUESTS,
  SQL,
  TIME,
  ROUTE,
  AUTH,
  SESSION,
  LOGS,
  VIEWS,
  UPLOADS,
  JOBS,
  DOMAIN,
  MIGRATIONS,
  EXCEPTIONS,
  ERRORS,
  CLIENT,
  API,
]
