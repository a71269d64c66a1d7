import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { requestErrors } from '../error-codes.js'
import type { HttpError } from '../errors.js'
import { isThenable } from '../hook-runner.js'
import type { Reply } from '../reply.js'
import { respond } from '../request-cycle.js'
import type { RequestCycle } from '../request-cycle-deps.js'
import { IDLE_GRACE_MS, trackConnections, type ConnectionTracker } from './drain.js'
import { BODY, nothingToDrain, readFraming, TWO_HOSTS } from './framing.js'
import { serialize, type WireReply } from './serialize.js'
import { SocketRequest } from './socket-request.js'
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
    always,
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

/**
 * A server's way from the kernel's replies back to the sockets: `answerRequest` asks the request
 * cycle, `ready` batches the replies of a loop turn, `writeReply` serialises and compresses one, and
 * `write` hands it to the socket and tells the connection tracker.
 *
 * The first reply of a turn of the event loop is written at once; the replies that become ready
 * after it in the same turn wait for its end (the check phase, right after the turn's I/O
 * callbacks) and are written together. Under load a turn reads requests from many sockets: written
 * back to back, their answers reach the clients in one burst, where written between the next
 * requests' handling they wake each client again and again (on loopback and on a VM, a wake-up is
 * most of a small write's cost). A lone request is written at once and pays one `setImmediate`
 * that marks the turn's end. `bench/techempower.ts` measures it (json at 64 connections and at
 * one); `test/kernel/reply-batching.test.ts` guards the order. A full batch ({@link MAX_READY}) is
 * written at once.
 */
interface Writer {
  readonly cycle: RequestCycle
  readonly tracker: ConnectionTracker
  readonly trustProxy: boolean
  readonly compression: Compression | undefined
  /** The security headers every answer carries, as an object (the server's own answers). */
  readonly always: Record<string, string>
  wroteThisTurn: boolean
  waiting: Exchange[]
}

/** A request and, once the kernel answered it, its reply (or the failure to make one). */
interface Exchange {
  readonly writer: Writer
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly init: SocketRequest
  /** The request came straight here: the tracker is told when it is answered (not via polka). */
  readonly tracked: boolean
  reply: Reply | undefined
  error: unknown
}

/**
 * Asks the request cycle (the successor's, once one took over) for the reply to `req`; `ready`
 * writes it, now when the cycle answered synchronously, else once it settles. The cycle turns
 * every failure into a reply: what it throws or rejects with is a kernel bug (a bare 500).
 */
function answerRequest(
  writer: Writer,
  req: IncomingMessage,
  res: ServerResponse,
  tracked: boolean,
): void {
  const init = new SocketRequest(req, writer.trustProxy)
  const exchange = { writer, req, res, init, tracked, reply: undefined, error: undefined }
  let reply: Reply | Promise<Reply>
  try {
    reply = respond(writer.cycle.successor ?? writer.cycle, init)
  } catch (error) {
    return ready(exchange, undefined, error)
  }
  if (!isThenable(reply)) return ready(exchange, reply)
  reply.then(
    (value) => ready(exchange, value),
    (error: unknown) => ready(exchange, undefined, error),
  )
}

/** A reply ready: written now when it is the turn's first, else at the turn's end. */
function ready(exchange: Exchange, reply: Reply | undefined, error?: unknown): void {
  exchange.reply = reply
  exchange.error = error
  const writer = exchange.writer
  if (!writer.wroteThisTurn) {
    writer.wroteThisTurn = true
    setImmediate(endOfTurn, writer)
    writeReply(exchange)
  } else if (writer.waiting.push(exchange) === MAX_READY) writeWaiting(writer)
}

function endOfTurn(writer: Writer): void {
  writer.wroteThisTurn = false
  writeWaiting(writer)
}

function writeWaiting(writer: Writer): void {
  const batch = writer.waiting
  writer.waiting = []
  for (const exchange of batch) writeReply(exchange)
}

/**
 * Serialises, compresses and writes one reply. Nothing here may throw: it runs in a read or
 * promise callback, or at the end of a loop turn with other replies, where a throw would end the
 * process (or lose the replies after it). A failure ends this response (and at worst its socket).
 */
function writeReply({ writer, req, res, init, reply, error, tracked }: Exchange): void {
  try {
    // A body left unread midway (refused over the limit, say) cannot be skipped on a keep-alive
    // socket without reading it whole: close the connection after this answer instead.
    if (req.readableDidRead && !req.readableEnded) res.shouldKeepAlive = false
    const handedOver =
      reply === undefined ? failed(writer, res, error) : send(writer, res, init, reply)
    if (tracked) answered(writer, req, res, handedOver)
  } catch (thrown) {
    writeFailed(writer, thrown, res)
  }
}

/** Serialises and writes a reply; true when it went to the socket whole within `end()`. */
function send(writer: Writer, res: ServerResponse, init: SocketRequest, reply: Reply): boolean {
  const compression = writer.compression
  // HEAD is serialized and compressed as its GET (same coding, same length), then sent without
  // the body (test/browser/cross-origin.test.ts compares their headers).
  const head = init.method === 'HEAD' && compression !== undefined
  const wire = serialize(reply, head ? 'GET' : init.method, writer.cycle.securityHeaders, init)
  if (compression === undefined) return write(writer, res, wire)
  // Compressed here, or off the event loop and written when ready (followed to the close).
  return compression.apply(wire, init, (coded, thrown) =>
    coded === undefined
      ? failed(writer, res, thrown)
      : write(writer, res, head ? withoutBody(coded) : coded),
  )
}

/** Tells the tracker the request on `req`'s socket is answered, now or at the response's close. */
function answered(
  writer: Writer,
  req: IncomingMessage,
  res: ServerResponse,
  handedOver: boolean,
): void {
  // The socket is gone when the client went away (or its request broke) before the answer.
  const socket = req.socket as Socket | null
  if (socket === null) return
  // Usually the whole reply went to the socket within end(); a stream or a slow socket is
  // followed to the response's close instead.
  if (handedOver && socket.writableLength === 0) writer.tracker.answered(socket)
  else res.once('close', () => writer.tracker.answered(socket))
}

/** Writes a wire reply; true when it was handed to the socket whole (no stream to follow). */
function write(writer: Writer, res: ServerResponse, wire: WireReply): boolean {
  try {
    res.writeHead(wire.status, wire.headers)
    const p = wire.payload
    if (p === undefined || typeof p === 'string' || p instanceof Uint8Array) {
      res.end(p)
      return true
    }
    p.on('error', (error) => writeFailed(writer, error, res))
    p.pipe(res)
  } catch (error) {
    writeFailed(writer, error, res)
  }
  return false
}

/** Writing a reply failed after the kernel made it (a broken stream, a closed socket). */
function writeFailed(writer: Writer, error: unknown, res: ServerResponse): void {
  writer.cycle.deps.logger().error('writing a response failed', { error })
  res.destroy()
}

/**
 * The kernel failed to make a reply (a kernel bug: it turns every failure into one), or writing
 * one failed: a bare 500, or the response ended. True: nothing is left to follow.
 */
function failed(writer: Writer, res: ServerResponse, error: unknown): true {
  writer.cycle.deps.logger().error('writing a response failed', { error })
  if (!res.headersSent)
    res.writeHead(500, { ...writer.always, 'content-type': 'application/json; charset=utf-8' })
  res.end('{"error":"unavailable"}')
  return true
}

/**
 * At most this many replies wait for the end of a turn; the batch is written when it is full. A
 * turn can read thousands of requests (256 connections pipelining 16 each), and holding them all
 * until its end halved pipelined plaintext's rate (`bench/techempower.ts`, plaintext at 256).
 */
const MAX_READY = 128

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

/** A GET's wire reply as its HEAD sends it: the same headers, no body (a stream is ended). */
function withoutBody(wire: WireReply): WireReply {
  const payload = wire.payload
  if (payload !== undefined && typeof payload !== 'string' && !(payload instanceof Uint8Array))
    payload.destroy()
  return { status: wire.status, headers: wire.headers, payload: undefined }
}
