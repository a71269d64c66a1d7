// The tabs, in the order the bar shows them. Each says when it is shown (only when the data is
// there; Client always), what its button counts, when it is red, and what its panel holds.
import { API } from './tab-api.js'
import { CLIENT, ERRORS } from './tabs-client.js'
import { EXCEPTIONS, LOGS } from './tabs-aggregate.js'
import { REQUESTS } from './tab-requests.js'
import { AUTH, DOMAIN, MIGRATIONS, ROUTE, SESSION, SQL, TIME, VIEWS } from './tabs-server.js'
import { REALTIME } from './tabs-realtime.js'
import { UPLOADS } from './tabs-uploads.js'
import { JOBS } from './tabs-jobs.js'
import type { Tab } from './tab.js'

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
  REALTIME,
  JOBS,
  DOMAIN,
  MIGRATIONS,
  EXCEPTIONS,
  ERRORS,
  CLIENT,
  API,
]
