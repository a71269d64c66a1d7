import type { OutgoingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { requestErrors } from '../error-codes.js'
import type { Reply } from '../reply.js'
import {
  applySecurityHeaders,
  NO_SECURITY_HEADERS,
  type SecurityHeaders,
} from './security-headers.js'

/** A reply as it goes on the wire: final headers and the payload (none for HEAD, 204, 304). */
export interface WireReply {
  readonly status: number
  readonly headers: OutgoingHttpHeaders
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
 * not set itself.
 */
export function serialize(
  reply: Reply,
  method: string,
  security: SecurityHeaders = NO_SECURITY_HEADERS,
): WireReply {
  // The reply's own header object, completed in place: serialising is the reply's last step, and a
  // copy (a spread especially, whose fresh hidden class makes every added header a transition)
  // costs more than the rest of this function.
  const headers = reply.headers as OutgoingHttpHeaders
  const noBody = reply.status === 204 || reply.status === 304 || reply.status < 200
  let payload: string | Uint8Array | Readable | undefined
  const body = reply.body
  switch (body.kind) {
    case 'json':
      payload = JSON.stringify(body.value) ?? 'null'
      headers['content-type'] ??= TYPES.json
      break
    case 'html':
      payload = body.value
      headers['content-type'] ??= TYPES.html
      break
    case 'text':
      payload = body.value
      headers['content-type'] ??= TYPES.text
      break
    case 'bytes':
      payload = body.value
      headers['content-type'] ??= 'application/octet-stream'
      break
    case 'stream':
      payload = body.value
      headers['content-type'] ??= 'application/octet-stream'
      break
    case 'empty':
      payload = undefined
      break
    case 'view':
      throw requestErrors.error('FW_ERR_VIEW_NO_ENGINE', { template: body.template })
  }
  applySecurityHeaders(headers, security)
  if (noBody) {
    delete headers['content-type']
    delete headers['content-length']
    return { status: reply.status, headers, payload: undefined }
  }
  // As text: Node checks every header value with a regular expression, which for a number takes
  // V8's generic path (and converts it twice, to check it and to write it).
  if (typeof payload === 'string') headers['content-length'] = `${Buffer.byteLength(payload)}`
  else if (payload instanceof Uint8Array) headers['content-length'] = `${payload.byteLength}`
  else if (payload === undefined) headers['content-length'] = '0'
  if (method === 'HEAD') {
    if (payload !== undefined && typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
      payload.destroy()
    }
    return { status: reply.status, headers, payload: undefined }
  }
  return { status: reply.status, headers, payload }
}
