// The report's other shapes: the reduced verdict (`/health/status`), the well-known component
// map (`/.well-known/health`) and the IETF health-check draft (`Accept: application/health+json`).
import type { HealthReport, HealthStatus } from './types.js'

/** `/health/status`: no versions, drivers, paths or latencies. */
export interface HealthVerdict {
  status: 'healthy' | 'unhealthy'
  timestamp: string
  service: string
  /** The names of the checks not `ok`; only when unhealthy. */
  errors?: string[]
}

export function verdict(report: HealthReport, service: string, now = new Date()): HealthVerdict {
  const timestamp = now.toISOString()
  if (report.status === 'ok') return { status: 'healthy', timestamp, service }
  const errors = Object.values(report.checks)
    .filter((c) => c.status !== 'ok')
    .map((c) => c.name)
  return { status: 'unhealthy', timestamp, service, errors }
}

/** `/.well-known/health`: `error` for a `down` component; overall `error` when any is. */
export interface WellKnownHealth {
  status: 'ok' | 'error'
  timestamp: string
  components: Record<string, 'ok' | 'error'>
}

export function wellKnown(report: HealthReport, now = new Date()): WellKnownHealth {
  const components: Record<string, 'ok' | 'error'> = {}
  for (const c of Object.values(report.checks))
    components[c.name] = c.status === 'down' ? 'error' : 'ok'
  const status = Object.values(components).includes('error') ? 'error' : 'ok'
  return { status, timestamp: now.toISOString(), components }
}

const IETF: Record<HealthStatus, 'pass' | 'warn' | 'fail'> = {
  ok: 'pass',
  degraded: 'warn',
  down: 'fail',
}

/**
 * The HTTP status of a report in the IETF format: the draft wants 2xx–3xx for `pass` and `warn`
 * (healthy, with concerns), 4xx–5xx for `fail`. fw's own format answers 503 for `degraded` too.
 */
export function ietfStatusCode(report: HealthReport): number {
  return report.status === 'down' ? 503 : 200
}

/** One entry of the draft's `checks` map. */
export interface IetfCheck {
  componentId: string
  componentType: string
  status: 'pass' | 'warn' | 'fail'
  output?: string
  time?: string
  observedValue?: number | string
  observedUnit?: string
}

/**
 * The report in draft-inadarei-api-health-check format (`application/health+json`). `checks` is
 * keyed `component:measurement` for a check that measures something (`database:responseTime`),
 * by the check's name otherwise.
 */
export interface IetfHealth {
  status: 'pass' | 'warn' | 'fail'
  serviceId: string
  description: string
  checks: Record<string, IetfCheck[]>
}

/**
 * The draft's `componentType` of a check: `datastore` for the database and the cache, `system`
 * for disk and memory, `component` otherwise; a check's own `details.component_type` wins.
 */
function componentTypeOf(name: string, details: Record<string, unknown> | undefined): string {
  const own = details?.component_type
  if (typeof own === 'string' && own !== '') return own
  if (name === 'database' || name === 'cache' || name === 'redis') return 'datastore'
  if (name === 'disk_space' || name === 'memory_limit') return 'system'
  return 'component'
}

/** A figure a check's `details` may hold, and how the draft names it. */
interface Measurement {
  /** The key in `details`. */
  readonly key: string
  /** The draft's `measurementName`, after the colon of the `checks` key. */
  readonly name: string
  readonly unit?: string
}

const RESPONSE_TIME: Measurement = { key: 'latency_ms', name: 'responseTime', unit: 'ms' }
const DISK_FREE: Measurement = { key: 'free_bytes', name: 'free', unit: 'bytes' }
const MEMORY_USED: Measurement = { key: 'used_bytes', name: 'utilization', unit: 'bytes' }
const KEY_BITS: Measurement = { key: 'bits', name: 'bits', unit: 'bits' }
const CACHE_STORE: Measurement = { key: 'store', name: 'store' }

/** The figures any check reports by putting these keys in its `details`, in this order. */
const MEASUREMENTS: readonly Measurement[] = [RESPONSE_TIME, DISK_FREE, MEMORY_USED, KEY_BITS]

/**
 * The built-in checks: the draft's component name (`disk_space` is the `disk`) and what each
 * always measures, so that its key stays the same when it fails before measuring (a database that
 * does not answer is `database:responseTime`, `fail`, without a value).
 */
const BUILT_IN: Readonly<Record<string, { component: string; measures: readonly Measurement[] }>> =
  {
    database: { component: 'database', measures: [RESPONSE_TIME] },
    disk_space: { component: 'disk', measures: [DISK_FREE] },
    memory_limit: { component: 'memory', measures: [MEMORY_USED] },
    signing_keys: { component: 'signing_keys', measures: [KEY_BITS] },
    cache: { component: 'cache', measures: [CACHE_STORE] },
    redis: { component: 'redis', measures: [RESPONSE_TIME] },
  }

function observed(value: unknown): number | string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && value !== '') return value
  return undefined
}

export function ietf(report: HealthReport, service: string): IetfHealth {
  const checks: Record<string, IetfCheck[]> = {}
  for (const c of Object.values(report.checks)) {
    const builtIn = BUILT_IN[c.name]
    const component = builtIn?.component ?? c.name
    const measures = [...(builtIn?.measures ?? [])]
    for (const m of MEASUREMENTS)
      if (!measures.includes(m) && observed(c.details?.[m.key]) !== undefined) measures.push(m)
    const base: IetfCheck = {
      componentId: c.name,
      componentType: componentTypeOf(c.name, c.details),
      status: IETF[c.status],
    }
    // The draft: `output` is for what went wrong; a passing check has none.
    if (base.status !== 'pass') base.output = c.message
    const at = c.details?.checked_at
    if (typeof at === 'string') base.time = at
    if (measures.length === 0) {
      checks[c.name] = [base]
      continue
    }
    for (const m of measures) {
      const entry: IetfCheck = { ...base }
      const value = observed(c.details?.[m.key])
      if (value !== undefined) {
        entry.observedValue = value
        if (m.unit !== undefined) entry.observedUnit = m.unit
      }
      checks[`${component}:${m.name}`] = [entry]
    }
  }
  return {
    status: IETF[report.status],
    serviceId: service,
    description: `health of ${service}`,
    checks,
  }
}
