import { validateHeaderName, validateHeaderValue, type IncomingHttpHeaders } from 'node:http'
import type { RequestInit } from '../context.js'
import { EventLog, type AnyEvent } from '../events.js'
import type { Reply } from '../reply.js'
import { respond } from '../request-cycle.js'
import type { RequestCycle } from '../request-cycle-deps.js'
import { serialize, unavailable, type WireReply } from './serialize.js'

/** A request for `kernel.inject()`: a URL at least; a plain-object body is sent as JSON. */
export interface InjectRequest {
  method?: string
  url: string
  headers?: Record<string, string | string[] | undefined>
  /** A string or bytes go as they are; an object is JSON-encoded (content type set if missing). */
  body?: string | Uint8Array | Record<string, unknown> | readonly unknown[]
  /** Cookies to send, merged into a `cookie` header. */
  cookies?: Record<string, string>
  /** Pretend the request came over TLS. */
  secure?: boolean
  remoteAddress?: string
}

/** What `kernel.inject()` answers: the response as a client would get it, plus the event log. */
export interface InjectResponse {
  readonly status: number
  /** Response headers, lower-case names; numbers as strings, `set-cookie` as an array. */
  readonly headers: Readonly<Record<string, string | string[]>>
  /** The body as text (empty for HEAD, 204, 304). */
  readonly body: string
  /** The body parsed as JSON; throws when it is not JSON. */
  json<T = unknown>(): T
  /** The reply value after `render` and `annotate`. */
  readonly reply: Reply
  /** The request's event log, oldest first. */
  readonly events: readonly AnyEvent[]
}

/** A request answered in-process, as a client would see it (`kernel.inject`). */
export async function inject(
  cycle: RequestCycle,
  request: InjectRequest | string,
): Promise<InjectResponse> {
  const init = injectInit(request)
  const log = new EventLog()
  const reply = await respond(cycle, init, log)
  const secure = { secure: () => init.secure === true }
  let wire = serialize(reply, init.method, cycle.securityHeaders, secure)
  const refused = refusedHeader(wire)
  if (refused !== undefined) {
    // As the socket server answers what Node refuses to write (http/reply-writer.ts `failed`).
    cycle.deps.logger().error('writing a response failed', { error: refused })
    wire = unavailable(cycle.securityHeaders)
  }
  return toInjectResponse(wire, await readPayload(wire), reply, log.all())
}

/** What Node's `res.writeHead` would throw for these headers (a line break in a value), if any. */
function refusedHeader(wire: WireReply): unknown {
  try {
    for (let i = 0; i < wire.headers.length; i += 2) {
      const name = String(wire.headers[i])
      validateHeaderName(name)
      validateHeaderValue(name, wire.headers[i + 1] as string)
    }
    return undefined
  } catch (error) {
    return error
  }
}

/** Turns an inject request into what the socket server would hand the kernel. */
export function injectInit(request: InjectRequest | string): RequestInit {
  const req = typeof request === 'string' ? { url: request } : request
  const headers: IncomingHttpHeaders = {}
  for (const [k, v] of Object.entries(req.headers ?? {}))
    if (v !== undefined) headers[k.toLowerCase()] = v as string
  let body: string | Uint8Array | undefined
  if (req.body === undefined || typeof req.body === 'string' || req.body instanceof Uint8Array)
    body = req.body
  else {
    body = JSON.stringify(req.body)
    headers['content-type'] ??= 'application/json'
  }
  if (body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(body))
  if (req.cookies) {
    const extra = Object.entries(req.cookies)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('; ')
    headers.cookie = headers.cookie ? `${headers.cookie}; ${extra}` : extra
  }
  headers.host ??= 'localhost'
  let url = req.url.startsWith('/') ? req.url : `/${req.url}`
  if (url.startsWith('//')) url = url.replace(/^\/+/, '/')
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    url,
    headers,
    body,
    secure: req.secure === true,
    ip: req.remoteAddress || '127.0.0.1',
  }
}

/** Reads a wire reply's payload to text, as a client would receive it. */
async function readPayload(wire: WireReply): Promise<string> {
  const p = wire.payload
  if (p === undefined) return ''
  if (typeof p === 'string') return p
  if (p instanceof Uint8Array) return Buffer.from(p).toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of p) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks).toString('utf8')
}

function toInjectResponse(
  wire: WireReply,
  text: string,
  reply: Reply,
  events: readonly AnyEvent[],
): InjectResponse {
  const headers: Record<string, string | string[]> = {}
  const list = wire.headers
  for (let i = 0; i < list.length; i += 2) {
    const value = list[i + 1]
    if (value !== undefined)
      headers[list[i] as string] = Array.isArray(value) ? value.map(String) : String(value)
  }
  return {
    status: wire.status,
    headers,
    body: text,
    json<T>(): T {
      return JSON.parse(text) as T
    },
    reply,
    events,
  }
}
