import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type { RequestInit } from '../context.js'

/**
 * A request from the socket as the kernel takes it. Headers, scheme and address are read only when
 * asked (Node builds `req.headers` on first access, and the socket's address is a call into C++),
 * by methods rather than closures made per request: a route that reads none pays for none.
 */
export class SocketRequest implements RequestInit {
  readonly method: string
  readonly url: string
  readonly body: IncomingMessage
  readonly #trustProxy: boolean

  constructor(req: IncomingMessage, trustProxy: boolean) {
    this.method = req.method ?? 'GET'
    // polka rewrites req.url under a mount; originalUrl is what the client sent.
    this.url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/'
    this.body = req
    this.#trustProxy = trustProxy
  }

  headers(): IncomingHttpHeaders {
    return this.body.headers
  }

  secure(): boolean {
    return cameOverHttps(this.body, this.#trustProxy)
  }

  ip(): string {
    const req = this.body
    const forwardedFor = req.headers['x-forwarded-for']
    if (this.#trustProxy && typeof forwardedFor === 'string')
      return forwardedFor.split(',')[0]!.trim()
    return req.socket.remoteAddress ?? ''
  }
}

/**
 * True when the request came over TLS, or through a proxy the operator trusts (`trustProxy`, from
 * `http.trust_proxy`) saying `X-Forwarded-Proto: https`. Anyone can send the header: without the
 * trust it counts for nothing.
 */
export function cameOverHttps(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as TLSSocket).encrypted === true) return true
  if (!trustProxy) return false
  const forwardedProto = req.headers['x-forwarded-proto']
  return (
    typeof forwardedProto === 'string' &&
    forwardedProto.split(',')[0]!.trim().toLowerCase() === 'https'
  )
}
