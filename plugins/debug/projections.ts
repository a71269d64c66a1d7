// Projections of a request's event log: the `_debug` payload, `Server-Timing` and the
// `X-Fw-Debug` summary. Each is a function of the log (plus the kernel's boot phases and the
// request's own fields); nothing here keeps state of its own.
import type {} from 'fw/plugins/api'
import type {} from 'fw/plugins/database'
import type { AnyEvent, BootTiming, FwEvent, RequestContext } from 'fw'
import { redactParams } from './redact.js'

/** Statements kept in the payload; `count` stays the full count. */
export const MAX_STATEMENTS = 100
/** Log lines kept in the payload (the last ones). */
export const MAX_LOGS = 100
/** Request body kept, in characters of its JSON; longer bodies are cut and marked. */
export const MAX_BODY = 8 * 1024

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

const round = (ms: number): number => Math.round(ms * 100) / 100
const mb = (bytes: number): number => Math.round((bytes / 1048576) * 100) / 100

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
function shownMethod(method: string): string {
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

/** What the payload needs besides the log. */
export interface PayloadInput {
  readonly ctx: RequestContext
  readonly events: readonly AnyEvent[]
  readonly status: number
  readonly id: string | undefined
  readonly time: number
  readonly memoryBytes: number
  /** The request body as parsed, when the request had one (masked here). */
  readonly body: unknown
}

function only<T extends AnyEvent['type']>(events: readonly AnyEvent[], type: T): FwEvent<T>[] {
  const out: FwEvent<T>[] = []
  for (const e of events) if (e.type === type) out.push(e as unknown as FwEvent<T>)
  return out
}

function cutBody(body: unknown, redact: (value: unknown) => unknown): unknown {
  if (body === undefined) return undefined
  const masked = redact(body)
  let text: string
  try {
    text = JSON.stringify(masked) ?? ''
  } catch {
    return '[unserialisable]'
  }
  if (text.length <= MAX_BODY) return masked
  return { truncated: true, size: text.length, head: text.slice(0, MAX_BODY) }
}

/** The request's kernel's redaction (docs/redaction.md): the built-in keys plus plugins' own. */
const redactor =
  (i: PayloadInput) =>
  (value: unknown): unknown =>
    i.ctx.kernel.redaction.redact(value)

const CLAIMS = ['sub', 'iss', 'aud', 'iat', 'exp', 'nbf', 'jti', 'userid', 'username'] as const

/** Each projection by payload key; one that throws becomes `{error: message}` under its key. */
const PROJECTIONS: Record<string, (input: PayloadInput) => unknown> = {
  time: (i) => round(i.time),
  memory: (i) => mb(i.memoryBytes),
  request: (i) => {
    const out: Record<string, unknown> = {
      id: i.id ?? null,
      method: shownMethod(i.ctx.method),
      path: i.ctx.path,
      status: i.status,
      time: round(i.time),
      memory: mb(i.memoryBytes),
    }
    if (i.ctx.querystring !== '') out.query = redactor(i)(i.ctx.query)
    const body = cutBody(i.body, redactor(i))
    if (body !== undefined) out.body = body
    return out
  },
  request_method: (i) => shownMethod(i.ctx.method),
  timing: (i) => phaseTimes(i.events, i.ctx.kernel.bootPhases),
  queries: (i) => {
    const all = only(i.events, 'query.executed')
    let total = 0
    for (const q of all) total += q.data.duration
    const out: Record<string, unknown> = {
      count: all.length,
      total_ms: round(total),
      statements: all.slice(0, MAX_STATEMENTS).map((q) => ({
        sql: q.data.sql,
        params: redactParams(q.data.sql, q.data.params, i.ctx.kernel.redaction),
        ms: round(q.data.duration),
        rows: q.data.rows ?? null,
        ...(q.data.failed ? { failed: true } : {}),
      })),
    }
    if (all.length > MAX_STATEMENTS) out.truncated = true
    return out
  },
  route: (i) => {
    const matched = only(i.events, 'route.matched').at(-1)
    if (matched !== undefined) {
      const d = matched.data
      return {
        method: shownMethod(d.method),
        path: d.path,
        name: d.name ?? null,
        handler: d.handler,
        params: redactor(i)(d.params),
      }
    }
    const missed = only(i.events, 'route.missed').at(-1)
    if (missed !== undefined)
      return {
        missed: true,
        method: shownMethod(missed.data.method),
        path: missed.data.path,
        allowed: missed.data.allowed,
      }
    return null
  },
  auth: (i) => {
    const last = only(i.events, 'auth.resolved').at(-1)
    // An API key (the api plugin): the application's name, never the key (README.md "The
    // payload"). It is `what` authenticated the request unless a user's credential did too.
    const key = only(i.events, 'api.key.accepted').at(-1)
    if (last === undefined) {
      if (key === undefined) return null
      return { what: 'apiKey', application: key.data.application, user: null }
    }
    const d = last.data
    const out: Record<string, unknown> = {
      what: d.user === null && key !== undefined ? 'apiKey' : d.credential,
      user: d.user,
      credential: d.credential,
      source: d.source,
      expires: d.expires,
    }
    if (key !== undefined) out.application = key.data.application
    if (d.action !== undefined) out.action = d.action
    if (d.refused !== undefined) out.refused = d.refused
    if (d.claims !== undefined) {
      const claims: Record<string, unknown> = {}
      for (const k of CLAIMS) if (d.claims[k] !== undefined) claims[k] = d.claims[k]
      out.claims = claims
    }
    // A refused token's claims, read without verification: marked so nobody takes them as proof.
    if (d.unverified === true) out.unverified = true
    return out
  },
  session: (i) => {
    const cookies: Record<string, string> = {}
    for (const name of Object.keys(i.ctx.cookies)) cookies[name] = '***'
    const data = (i.ctx.state as Record<string, unknown>).session
    const out: Record<string, unknown> = { cookies }
    if (data !== undefined) out.data = redactor(i)(data)
    return out
  },
  logs: (i) =>
    only(i.events, 'log.written')
      .slice(-MAX_LOGS)
      .map((e) => ({
        at: round(e.at),
        level: e.data.level,
        message: e.data.message,
        context: redactor(i)(e.data.context),
      })),
  views: (i) =>
    only(i.events, 'view.rendered').map((e) => ({
      template: e.data.template,
      file: e.data.file,
      ms: round(e.data.duration),
    })),
  models: (i) => {
    const out: { action: string; entity: string; id: unknown }[] = []
    for (const e of i.events) {
      if (
        e.type === 'model.loaded' ||
        e.type === 'model.created' ||
        e.type === 'model.updated' ||
        e.type === 'model.deleted'
      )
        out.push({
          action: e.type.slice(6),
          entity: e.data.entity,
          id: redactor(i)(e.data.id),
        })
    }
    return out
  },
  services: (i) => {
    const out: {
      name: string
      constructed?: boolean
      calls?: number
      ms?: number
      failed?: number
    }[] = []
    const byName = new Map<string, (typeof out)[number]>()
    const entry = (name: string) => {
      let s = byName.get(name)
      if (s === undefined) byName.set(name, (s = { name }))
      if (!out.includes(s)) out.push(s)
      return s
    }
    for (const e of i.events) {
      if (e.type === 'service.constructed') entry(e.data.name).constructed = true
      else if (e.type === 'service.measured') {
        const s = entry(e.data.name)
        s.calls = (s.calls ?? 0) + 1
        s.ms = round((s.ms ?? 0) + e.data.duration)
        if (e.data.failed) s.failed = (s.failed ?? 0) + 1
      }
    }
    return out
  },
  // Every migration the app knows with its state (README.md "The payload"): the database
  // plugin's snapshot, read when it prepared the database (at listen, `fw migrate`).
  migrations: (i) => {
    const kernel = i.ctx.kernel
    return kernel.hasPlugin('database') ? kernel.plugin('database').migrations() : []
  },
  exceptions: (i) =>
    only(i.events, 'exception.raised').map((e) => ({
      name: e.data.name,
      message: redactor(i)(e.data.message),
      code: e.data.code ?? null,
      status: e.data.status,
    })),
}

/** The `_debug` payload (also the island's content). A projection that throws becomes `{error}`. */
export function debugPayload(input: PayloadInput): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, project] of Object.entries(PROJECTIONS)) {
    try {
      out[key] = project(input)
    } catch (error) {
      out[key] = { error: error instanceof Error ? error.message : String(error) }
    }
  }
  return out
}

/** For tests: replace one projection (returns a function that restores it). */
export function overrideProjection(key: string, fn: (input: PayloadInput) => unknown): () => void {
  const before = PROJECTIONS[key]
  PROJECTIONS[key] = fn
  return () => {
    if (before === undefined) delete PROJECTIONS[key]
    else PROJECTIONS[key] = before
  }
}
