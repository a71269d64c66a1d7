// The `_debug` payload's projections of the kernel's events and the debug plugin's own: the request,
// its timings, route, session, measured services and exceptions (README.md "The payload"). Other
// plugins project their own events (`kernel.plugin('debug').project(…)`).
import { phaseTimes, mb, shownMethod } from './headers.js'
import type { PayloadProjections, ProjectionInput } from './payload.js'

/** Request body kept, in characters of its JSON; longer bodies are cut and marked. */
export const MAX_BODY = 8 * 1024

function cutBody(input: ProjectionInput): unknown {
  if (input.body === undefined) return undefined
  const masked = input.redact(input.body)
  let text: string
  try {
    text = JSON.stringify(masked) ?? ''
  } catch {
    return '[unserialisable]'
  }
  if (text.length <= MAX_BODY) return masked
  return { truncated: true, size: text.length, head: text.slice(0, MAX_BODY) }
}

function request(i: ProjectionInput): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: i.id ?? null,
    method: shownMethod(i.ctx.method),
    path: i.ctx.path,
    status: i.status,
    time: i.ms(i.time),
    memory: mb(i.memoryBytes),
  }
  if (i.ctx.querystring !== '') out.query = i.redact(i.ctx.query)
  const body = cutBody(i)
  if (body !== undefined) out.body = body
  return out
}

function route(i: ProjectionInput): unknown {
  const matched = i.of('route.matched').at(-1)
  if (matched !== undefined) {
    const d = matched.data
    return {
      method: shownMethod(d.method),
      path: d.path,
      name: d.name ?? null,
      handler: d.handler,
      params: i.redact(d.params),
    }
  }
  const missed = i.of('route.missed').at(-1)
  if (missed === undefined) return null
  return {
    missed: true,
    method: shownMethod(missed.data.method),
    path: missed.data.path,
    allowed: missed.data.allowed,
  }
}

function session(i: ProjectionInput): Record<string, unknown> {
  const cookies: Record<string, string> = {}
  for (const name of Object.keys(i.ctx.cookies)) cookies[name] = '***'
  const data = (i.ctx.state as Record<string, unknown>).session
  const out: Record<string, unknown> = { cookies }
  if (data !== undefined) out.data = i.redact(data)
  return out
}

interface ServiceEntry {
  name: string
  constructed?: boolean
  calls?: number
  ms?: number
  failed?: number
}

function services(i: ProjectionInput): ServiceEntry[] {
  const out: ServiceEntry[] = []
  const byName = new Map<string, ServiceEntry>()
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
      s.ms = i.ms((s.ms ?? 0) + e.data.duration)
      if (e.data.failed) s.failed = (s.failed ?? 0) + 1
    }
  }
  return out
}

/** Registers the projections of the kernel's events and the debug plugin's own. */
export function projectOwnEvents(payload: PayloadProjections): void {
  payload.project('time', (i) => i.ms(i.time))
  payload.project('memory', (i) => mb(i.memoryBytes))
  payload.project('request', request)
  payload.project('request_method', (i) => shownMethod(i.ctx.method))
  payload.project('timing', (i) => phaseTimes(i.events, i.ctx.kernel.bootPhases))
  payload.project('route', route)
  payload.project('session', session)
  payload.project('services', services)
  payload.project('devpanel', (i) => (i.devpanel === undefined ? false : i.devpanel))
  payload.project('exceptions', (i) =>
    i.of('exception.raised').map((e) => ({
      name: e.data.name,
      message: i.redact(e.data.message),
      code: e.data.code ?? null,
      status: e.data.status,
    })),
  )
}
