// The report's other shapes: the reduced verdict (`/health/status`), the well-known component
// map (`/.well-known/health`) and the IETF health-check draft (`Accept: application/health+json`).
import type { HealthReport, HealthStatus } from './types.js'

/** `/health/status` (spec-notes.md "Health"): no versions, drivers, paths or latencies. */
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

/** One entry of the draft's `checks` map. */
export interface IetfCheck {
  componentId: string
  componentType: string
  status: 'pass' | 'warn' | 'fail'
  output?: string
  time?: string
  observedValue?: number
  observedUnit?: string
}

/** The report in draft-inadarei-api-health-check format (`application/health+json`). */
export interface IetfHealth {
  status: 'pass' | 'warn' | 'fail'
  serviceId: string
  description: string
  checks: Record<string, IetfCheck[]>
}

/**
 * The draft's `componentType` of a check (spec-notes "Health"): `datastore` for the database and
 * the cache, `system` for disk and memory, `component` otherwise; a check's own
 * `details.component_type` wins.
 */
function componentTypeOf(name: string, details: Record<string, unknown> | undefined): string {
  const own = details?.component_type
  if (typeof own === 'string' && own !== '') return own
  if (name === 'database' || name === 'cache' || name === 'redis') return 'datastore'
  if (name === 'disk_space' || name === 'memory_limit') return 'system'
  return 'component'
}

/**
 * What a check measured, from its `details` (first match): `free_bytes` (disk free), `used_bytes`
 * (memory used), `bits` (key size), `latency_ms` (an answer's time).
 */
const OBSERVED: ReadonlyArray<readonly [key: string, unit: string]> = [
  ['free_bytes', 'bytes'],
  ['used_bytes', 'bytes'],
  ['bits', 'bits'],
  ['latency_ms', 'ms'],
]

export function ietf(report: HealthReport, service: string): IetfHealth {
  const checks: Record<string, IetfCheck[]> = {}
  for (const c of Object.values(report.checks)) {
    const entry: IetfCheck = {
      componentId: c.name,
      componentType: componentTypeOf(c.name, c.details),
      status: IETF[c.status],
    }
    for (const [key, unit] of OBSERVED) {
      const value = c.details?.[key]
      if (typeof value === 'number' && Number.isFinite(value)) {
        entry.observedValue = value
        entry.observedUnit = unit
        break
      }
    }
    // The draft: `output` is for what went wrong; a passing check has none.
    if (entry.status !== 'pass') entry.output = c.message
    const at = c.details?.checked_at
    if (typeof at === 'string') entry.time = at
    checks[c.name] = [entry]
  }
  return {
    status: IETF[report.status],
    serviceId: service,
    description: `health of ${service}`,
    checks,
  }
}
