// The shapes the toolbar reads: the `_debug` payload (plugins/debug/projections.ts), the
// `X-Fw-Debug` summary and one recorded request. Every field is optional: a payload may come
// from an older server, a projection may have failed (`{error}`), a response may carry nothing.

export interface Statement {
  sql: string
  params?: unknown[]
  ms?: number
  rows?: number | null
  failed?: boolean
}

export interface Payload {
  /** Whether this user may read the dev panel's log lines; null: this request did not know. */
  devpanel?: boolean | null
  time?: number
  memory?: number
  request?: {
    id?: string | null
    method?: string
    path?: string
    status?: number
    time?: number
    query?: unknown
    body?: unknown
  }
  timing?: Record<string, number>
  queries?: { count?: number; total_ms?: number; statements?: Statement[]; truncated?: boolean }
  route?: {
    method?: string
    path?: string
    name?: string | null
    handler?: string
    params?: Record<string, unknown>
    missed?: boolean
    allowed?: string[]
  } | null
  auth?: {
    user?: { id: number; username: string; usertype?: number } | null
    credential?: string | null
    source?: string | null
    expires?: number | null
    action?: string
    refused?: string
    claims?: Record<string, unknown>
  } | null
  session?: { cookies?: Record<string, string>; data?: unknown }
  logs?: { at?: number; level?: string; message?: string; context?: unknown }[]
  views?: { template?: string; file?: string; ms?: number }[]
  models?: { action?: string; entity?: string; id?: unknown }[]
  /** The uploads plugin's files (`upload.received`) and refusals (`upload.refused`), in order. */
  uploads?: {
    field?: string | null
    name?: string
    size?: number
    type?: string | null
    declared_type?: string
    refused?: string
    status?: number
    at?: number
    ms?: number
  }[]
  /** The realtime plugin's streams (`realtime.subscribed`, `.refused`) and publications. */
  realtime?: {
    subscribed?: {
      at?: number
      channel?: string
      resumed?: boolean
      replayed?: number
      reset?: boolean
    }[]
    refused?: { at?: number; channel?: string; reason?: string }[]
    published?: {
      at?: number
      channel?: string
      event?: string
      id?: string
      bytes?: number
      shared?: boolean
    }[]
  } | null
  /**
   * The jobs plugin's dispatches (`job.dispatched`): `id` null for a `unique` job refused as a
   * duplicate; `runs`, where the job's finished runs are read.
   */
  jobs?: {
    name?: string
    id?: string | null
    key?: string
    delay?: number
    at?: number
    runs?: string
  }[]
  services?: { name: string; constructed?: boolean; calls?: number; ms?: number; failed?: number }[]
  /** Every migration the app knows, oldest first; `executed_at` null: pending. */
  migrations?: { name?: string; executed_at?: string | null }[]
  exceptions?: { name?: string; message?: string | null; code?: string | null; status?: number }[]
  error?: string
}

/** `X-Fw-Debug`: `{time, memory, id?, queries?, route?, errors?}`. */
export interface Summary {
  time?: number
  memory?: number
  id?: string
  queries?: number
  route?: string
  errors?: number
}

/** One request the page made (or the page's own). */
export interface Row {
  /** 1, 2, 3… in the order the bar recorded them (a request is recorded when it ends). */
  n: number
  method: string
  path: string
  /** `null`: the request failed before any status (network failure, abort). */
  status: number | null
  /** Client time in ms, when measured. */
  ms: number | null
  /** `performance.now()` at start and end (the timeline). */
  start: number
  end: number | null
  payload: Payload | null
  summary: Summary | null
  id: string | null
  /** The request body as sent, prepared for display (masked, cut). */
  body: BodyView | null
  /** The server-rendered page's own request. */
  own: boolean
  /** A network error's message. */
  failure?: string
}

export interface BodyView {
  text: string
  /** Size of the body as sent, in characters. */
  size: number
  cut: boolean
  pretty: boolean
  kind: 'json' | 'form' | 'text' | 'binary'
}

/**
 * The toolbar's settings: the inline script's `data-config` (the debug plugin's `browser` option),
 * or `window.__FW__.debugbar` for the ES module.
 */
export interface ToolbarConfig {
  /** The API prefix the API tab sends to, e.g. `/api/v1`. Default: the api plugin's, else `/`. */
  apiPrefix?: string
  /** The OpenAPI document's same-origin URL. Default: the openapi plugin's; none: no API tab. */
  openapi?: string
  /** An application API key from configuration that the API tab sends. Development only. */
  apiKey?: string
  /** The header the API key goes in. Default `apikey`. */
  apiKeyHeader?: string
  /** The localStorage key holding a bearer token for the API tab. */
  tokenKey?: string
  /** The dev panel's log endpoint. Default `/devpanel/logs`. */
  devpanel?: string
}

/** A payload key that holds a usable value (not absent, not a failed projection). */
export function has<K extends keyof Payload>(p: Payload | null | undefined, key: K): boolean {
  const v = p?.[key]
  if (v === undefined || v === null) return false
  if (typeof v === 'object' && !Array.isArray(v) && 'error' in v && Object.keys(v).length === 1)
    return false
  return true
}

/** True when the request raised something on the server (the payload's exceptions or the summary). */
export function raised(row: Row): boolean {
  const ex = row.payload?.exceptions
  return (Array.isArray(ex) && ex.length > 0) || (row.summary?.errors ?? 0) > 0
}

/** A failed row: 4xx, 5xx, no status at all, or a success that raised something. */
export function failed(row: Row): boolean {
  return row.status === null || row.status >= 400 || raised(row)
}
