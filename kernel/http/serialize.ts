import type { Readable } from 'node:stream'
import { requestErrors } from '../error-codes.js'
import type { HeaderValue, Reply } from '../reply.js'
import {
  addSecurityHeaders,
  NO_SECURITY_HEADERS,
  PLAIN_REQUEST,
  type SecureQuery,
  type SecurityHeaders,
} from './security-headers.js'

/**
 * A reply as it goes on the wire: its status, its headers as `res.writeHead` takes them (names in
 * lower case and values alternating, each name once) and its payload (none for HEAD, 204, 304).
 */
export interface WireReply {
  readonly status: number
  readonly headers: HeaderValue[]
  readonly payload: string | Uint8Array | Readable | undefined
}

const TYPES = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
} as const

/**
 * Turns a reply into what the server writes. The socket path and `inject()` both use it, so what a
 * test sees is what a client gets. HEAD keeps the headers (and the length) a GET would send but no
 * body; 1xx/204/304 never carry one. `security` adds the configured security headers the reply did
 * not set itself (the HTTPS-only ones when `request` came over HTTPS).
 *
 * The headers go out as one flat list rather than an object: Node then writes them without an
 * own-property check per name, and the reply's header object is read, never completed in place (a
 * property added to it is a hidden-class transition, and the object's shape differs from one route
 * to the next).
 */
export function serialize(
  reply: Reply,
  method: string,
  security: SecurityHeaders = NO_SECURITY_HEADERS,
  request: SecureQuery = PLAIN_REQUEST,
): WireReply {
  const status = reply.status
  const noBody = status === 204 || status === 304 || status < 200
  let payload: string | Uint8Array | Readable | undefined
  /** The body's content type; the reply's own `content-type` replaces it. */
  let type: HeaderValue | undefined
  const body = reply.body
  switch (body.kind) {
    case 'json':
      payload = JSON.stringify(body.value) ?? 'null'
      type = TYPES.json
      break
    case 'html':
      payload = body.value
      type = TYPES.html
      break
    case 'text':
      payload = body.value
      type = TYPES.text
      break
    case 'bytes':
    case 'stream':
      payload = body.value
      type = 'application/octet-stream'
      break
    case 'empty':
      payload = undefined
      break
    case 'view':
      throw requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template: body.template })
  }
  // A stream's length is the reply's to tell; any other payload's is counted below.
  const streamed = body.kind === 'stream'
  const own = reply.headers
  const headers: HeaderValue[] = []
  for (const name in own) {
    if (name === 'content-type') type = own[name]
    else if (name !== 'content-length' || (streamed && !noBody)) headers.push(name, own[name]!)
  }
  addSecurityHeaders(headers, own, type, security, request)
  if (noBody) return { status, headers, payload: undefined }
  if (type !== undefined) headers.push('content-type', type)
  // As text: Node checks every header value with a regular expression, which for a number takes
  // V8's generic path (and converts it twice, to check it and to write it).
  if (typeof payload === 'string') headers.push('content-length', `${Buffer.byteLength(payload)}`)
  else if (payload instanceof Uint8Array) headers.push('content-length', `${payload.byteLength}`)
  else if (payload === undefined) headers.push('content-length', '0')
  const wire = { status, headers, payload }
  return method === 'HEAD' ? withoutBody(wire) : wire
}

/**
 * The bare 500 the server writes in place of a reply it could not make or write (a header value
 * Node refuses, say): `inject()` answers the same (test/kernel/http.test.ts).
 */
export function unavailable(security: SecurityHeaders): WireReply {
  const payload = '{"error":"unavailable"}'
  const headers: HeaderValue[] = [...security.always.flat(), 'content-type', TYPES.json]
  headers.push('content-length', String(payload.length))
  return { status: 500, headers, payload }
}

/** A GET's wire reply as its HEAD sends it: the same headers, no body (a stream is ended). */
export function withoutBody(wire: WireReply): WireReply {
  const payload = wire.payload
  if (payload !== undefined && typeof payload !== 'string' && !(payload instanceof Uint8Array))
    payload.destroy()
  return { status: wire.status, headers: wire.headers, payload: undefined }
}
