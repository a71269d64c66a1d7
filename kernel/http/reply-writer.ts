import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Reply } from '../reply.js'
import { respondTo } from '../request-cycle.js'
import type { RequestCycle } from '../request-cycle-deps.js'
import type { Compression } from './compression.js'
import type { ConnectionTracker } from './drain.js'
import { serialize, unavailable, withoutBody, type WireReply } from './serialize.js'
import { SocketRequest } from './socket-request.js'

/**
 * From the kernel's replies back to the sockets: `answerRequest` asks the request cycle, `ready`
 * batches a loop turn's replies, `writeReply` serialises, compresses and writes one. A turn's
 * first reply is written at once; the rest wait for the turn's end (`setImmediate`) and go out in
 * one burst that wakes each client once, not between every two requests (a wake-up is most of a
 * small write's cost). `bench/techempower.ts` measures it; test/kernel/reply-batching.test.ts
 * guards the order.
 */
export interface Writer {
  readonly cycle: RequestCycle
  readonly tracker: ConnectionTracker
  readonly trustProxy: boolean
  readonly compression: Compression | undefined
  wroteThisTurn: boolean
  waiting: Exchange[]
}

/** A request and its reply (or the failure to make one); `tracked`: not via polka. */
interface Exchange {
  readonly writer: Writer
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly init: SocketRequest
  readonly tracked: boolean
  reply: Reply | undefined
  error: unknown
}

/**
 * At most this many replies wait for a turn's end: holding all of a turn's (thousands, pipelined)
 * halved pipelined plaintext's rate (`bench/techempower.ts`, plaintext at 256).
 */
const MAX_READY = 128

/** Asks the request cycle (the successor's, once one took over) for the reply to `req`. */
export function answerRequest(
  writer: Writer,
  req: IncomingMessage,
  res: ServerResponse,
  tracked: boolean,
): void {
  const init = new SocketRequest(req, writer.trustProxy)
  const exchange = { writer, req, res, init, tracked, reply: undefined, error: undefined }
  respondTo(writer.cycle.successor ?? writer.cycle, init, (reply, error) =>
    ready(exchange, reply, error),
  )
}

/** A reply ready: written now when it is the turn's first, else at the turn's end. */
function ready(exchange: Exchange, reply: Reply | undefined, error: unknown): void {
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
 * Writes one reply. Nothing here may throw: in a read or promise callback, or with a turn's other
 * replies, a throw would end the process or lose them. A failure ends this response alone.
 */
function writeReply(exchange: Exchange): void {
  const { writer, req, res, reply } = exchange
  try {
    // A body left unread midway (refused over the limit, say) cannot be skipped on a keep-alive
    // socket without reading it whole: close the connection after this answer instead.
    if (req.readableDidRead && !req.readableEnded) res.shouldKeepAlive = false
    const handedOver =
      reply === undefined ? failed(writer, res, exchange.error) : send(exchange, reply)
    if (exchange.tracked) answered(exchange, handedOver)
  } catch (thrown) {
    failed(writer, res, thrown)
  }
}

/** Serialises and writes a reply; true when it went to the socket whole within `end()`. */
function send({ writer, res, init }: Exchange, reply: Reply): boolean {
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

/** Tells the tracker `req`'s socket is answered: now, or at the close of a stream or slow write. */
function answered({ writer, req, res }: Exchange, handedOver: boolean): void {
  // The socket is gone when the client went away (or its request broke) before the answer.
  const socket = req.socket as Socket | null
  if (socket === null) return
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
    p.on('error', (error) => failed(writer, res, error))
    p.pipe(res)
  } catch (error) {
    failed(writer, res, error)
  }
  return false
}

/**
 * Making or writing a reply failed (a kernel bug, a header value Node refuses, a broken stream):
 * a bare 500 while nothing was sent (test/kernel/http.test.ts), else the response destroyed.
 * Never throws. True: nothing is left to follow.
 */
export function failed(writer: Writer, res: ServerResponse, error: unknown): true {
  writer.cycle.deps.logger().error('writing a response failed', { error })
  try {
    if (res.headersSent) res.destroy()
    else {
      const wire = unavailable(writer.cycle.securityHeaders)
      res.writeHead(wire.status, wire.headers)
      res.end(wire.payload)
    }
  } catch {
    res.destroy()
  }
  return true
}
