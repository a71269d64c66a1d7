// The headers an annotated response carries, projected from the request's event log:
// `Server-Timing` and the `X-Fw-Debug` summary. Each is a function of the log (plus the kernel's
// boot phases); nothing here keeps state of its own.
import type { AnyEvent, BootTiming } from 'fw'
import { roundMs as round } from './payload.js'

/** The framework phases, in the order `Server-Timing` lists them. */
export const FRAMEWORK_PHASES = [
  'bootstrap',
  'db-connect',
  'providers',
  'session',
  'routing',
  'controller',
  'middleware',
  'action',
  'debugbar',
] as const
const PHASE_SET: ReadonlySet<string> = new Set(FRAMEWORK_PHASES)
const BOOT_PHASES: ReadonlySet<string> = new Set(['bootstrap', 'db-connect', 'providers'])

/** Bytes as megabytes, rounded to hundredths. */
export const mb = (bytes: number): number => Math.round((bytes / 1048576) * 100) / 100

/** Milliseconds per framework phase: boot phases from the kernel, the others summed from the log. */
export function phaseTimes(
  events: readonly AnyEvent[],
  bootPhases: readonly BootTiming[],
): Record<string, number> {
  const sums = new Map<string, number>()
  for (const b of bootPhases)
    if (BOOT_PHASES.has(b.name)) sums.set(b.name, (sums.get(b.name) ?? 0) + b.duration)
  for (const e of events) {
    if (e.type !== 'phase.completed' || !PHASE_SET.has(e.data.name)) continue
    sums.set(e.data.name, (sums.get(e.data.name) ?? 0) + e.data.duration)
  }
  const out: Record<string, number> = {}
  for (const name of FRAMEWORK_PHASES) {
    const v = sums.get(name)
    if (v !== undefined) out[name] = round(v)
  }
  return out
}

/** The number of statements and their total time. */
export function queryTotals(events: readonly AnyEvent[]): { count: number; ms: number } {
  let count = 0
  let ms = 0
  for (const e of events) {
    if (e.type !== 'query.executed') continue
    count++
    ms += e.data.duration
  }
  return { count, ms }
}

/**
 * `Server-Timing`: the framework phases, `db;dur=<ms>;desc="<n> queries"` when statements ran,
 * and `total;dur=<ms>`. Application-named timers never appear. The boot phases carry their
 * durations only when `bootDurations` (the first annotated response of the process); afterwards
 * `desc="boot"` without `dur` (README.md "What an annotated response carries").
 */
export function serverTiming(
  events: readonly AnyEvent[],
  bootPhases: readonly BootTiming[],
  total: number,
  bootDurations = true,
): string {
  const parts: string[] = []
  for (const [name, ms] of Object.entries(phaseTimes(events, bootPhases)))
    parts.push(
      BOOT_PHASES.has(name) && !bootDurations ? `${name};desc="boot"` : `${name};dur=${ms}`,
    )
  const q = queryTotals(events)
  if (q.count > 0)
    parts.push(`db;dur=${round(q.ms)};desc="${q.count} ${q.count === 1 ? 'query' : 'queries'}"`)
  parts.push(`total;dur=${round(total)}`)
  return parts.join(', ')
}

/**
 * The method the debug projections show: a HEAD is described as the GET it stands for, so its
 * payload, and so its `Content-Length`, is the GET's (the log itself keeps `HEAD`).
 */
export function shownMethod(method: string): string {
  return method === 'HEAD' ? 'GET' : method
}

function routeLabel(events: readonly AnyEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'route.matched')
      return e.data.name ?? `${shownMethod(e.data.method)} ${e.data.path}`
  }
  return undefined
}

/**
 * The request's time as the debug data reports it (`_debug.time`, `X-Fw-Debug`'s `time`): up to
 * the start of the `debugbar` phase, where the payload was built, or `now` on a response that got
 * no payload. `Server-Timing`'s `total` includes that phase.
 */
export function requestTime(events: readonly AnyEvent[], now: number): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'phase.completed' && e.data.name === 'debugbar') return e.data.start
  }
  return now
}

/** Escapes every non-ASCII character so a JSON text is a valid header value. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/**
 * `X-Fw-Debug`: `{time, memory, id?, queries?, route?, errors?}` as compact JSON (`errors` only
 * above 0). Never query text, never error messages.
 */
export function summaryHeader(
  events: readonly AnyEvent[],
  total: number,
  memoryBytes: number,
  id: string | undefined,
): string {
  const out: Record<string, unknown> = { time: round(total), memory: mb(memoryBytes) }
  if (id !== undefined) out.id = id
  const q = queryTotals(events).count
  if (q > 0) out.queries = q
  const route = routeLabel(events)
  if (route !== undefined) out.route = route
  let errors = 0
  for (const e of events) if (e.type === 'exception.raised') errors++
  if (errors > 0) out.errors = errors
  return asciiJson(out)
}
