import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { requestErrors } from '../error-codes.js'
import type { HttpError } from '../errors.js'
import type { RequestCycle } from '../request-cycle-deps.js'
import { IDLE_GRACE_MS, trackConnections } from './drain.js'
import { BODY, nothingToDrain, readFraming, TWO_HOSTS } from './framing.js'
import { answerRequest, failed, type Writer } from './reply-writer.js'
import { mounted, staticApp, type StaticMount } from './static-files.js'
import { Compression, type CompressionConfig } from './compression.js'

/** How long `close()` lets requests finish before it closes every socket: 30 s. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000

/** The running server and a way to stop it gracefully. */
export interface RunningServer {
  readonly server: Server
  readonly address: AddressInfo
  /**
   * Stops accepting and drains (see `ConnectionTracker.drain`): with `delayMs`, new connections
   * are still accepted for that long first, every answer saying `Connection: close`; then the
   * listener closes once the accept queue is empty, every request already read or arriving on an
   * open socket is answered with `Connection: close`, and an idle keep-alive socket is closed after
   * a short grace. After `timeoutMs` more (default 30 s) every socket is closed. Resolves when the
   * last socket closed.
   */
  close(timeoutMs?: number, delayMs?: number): Promise<void>
}

/** What {@link startServer} is told: the socket, the proxy trust, compression, static mounts. */
export interface ServerOptions {
  port: number
  host: string
  trustProxy: boolean
  compression: CompressionConfig
  statics: readonly StaticMount[]
  /** How long draining leaves an idle keep-alive socket open (default {@link IDLE_GRACE_MS}). */
  idleGraceMs?: number
}

/**
 * Starts the server on `port`/`host`: a request under a static mount goes to polka and sirv (a
 * miss handed on to the kernel), every other one straight to the kernel's request cycle
 * (`answerRequest`), whose reply is serialised the same way `inject()` does it and written.
 */
export async function startServer(
  cycle: RequestCycle,
  options: ServerOptions,
): Promise<RunningServer> {
  const server = createServer()
  const tracker = trackConnections(server, options.idleGraceMs ?? IDLE_GRACE_MS)
  const compression = options.compression.enabled ? new Compression(options.compression) : undefined
  const always = Object.fromEntries(cycle.securityHeaders.always)
  const writer: Writer = {
    cycle,
    tracker,
    trustProxy: options.trustProxy,
    compression,
    wroteThisTurn: false,
    waiting: [],
  }
  // polka serves the static mounts (sirv), handing a miss on to the kernel. Requests outside
  // every mount go to the kernel directly: polka's loop costs two promises per request.
  const mounts = options.statics.map((m) => m.prefix)
  const app = staticApp(options.statics, {
    security: cycle.securityHeaders,
    trustProxy: options.trustProxy,
    compression,
  })
  app?.use((req: IncomingMessage, res: ServerResponse) => answerRequest(writer, req, res, false))
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const framing = readFraming(req.rawHeaders)
    if ((framing & TWO_HOSTS) !== 0) {
      tracker.request(req, res, true)
      refuse(res, requestErrors.httpError('FW_ERR_HTTP_HOST_DUPLICATE'), always)
    } else {
      if ((framing & BODY) === 0) nothingToDrain(req)
      if (app === undefined || !mounted(mounts, req.url ?? '/')) {
        tracker.request(req, res)
        answerRequest(writer, req, res, true)
      } else {
        tracker.request(req, res, true)
        // polka runs its middleware loop only when no `next` is passed in; sirv does not throw,
        // but a rejection here would outlive the request, so it is answered like any failure.
        const served = app.handler(req as never, res, undefined as never)
        Promise.resolve(served).catch((error: unknown) => failed(writer, res, error))
      }
    }
  })
  await listen(server, options.port, options.host)
  return {
    server,
    address: server.address() as AddressInfo,
    close: (timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS, delayMs = 0) => tracker.drain(timeoutMs, delayMs),
  }
}

/** Resolves once `server` accepts on `port`/`host`; rejects with what stopped it. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** Answers a request the server refuses before the pipeline, closing the connection after it. */
function refuse(res: ServerResponse, error: HttpError, always: Record<string, string>): void {
  const body = JSON.stringify(error.body)
  res.shouldKeepAlive = false
  res.writeHead(error.status, {
    ...always,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  })
  res.end(body)
}
