import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Reply } from '../reply.js'
import { respondTo } from '../request-cycle.js'
import type { RequestCycle } from '../request-cycle-deps.js'
import type { Compression } from './compression.js'
import type { ConnectionTracker } from './drain.js'
import { serialize, unavailable, withoutBody, type WireReply } from './serialize.js'
import { SocketRequest } from './socket-request.js'

/**
 * From the kernel's replies back to the sockets. A loop turn's first reply is written at once; the
 * rest wait for the turn's end (`setImmediate`) and go out in one burst that wakes each client
 * once (a wake-up is most of a small write's cost): `bench/techempower.ts` measures it,
 * test/kernel/reply-batching.test.ts guards the order.
 */
export interface Writer {
  readonly cycle: RequestCycle
  readonly tracker: ConnectionTracker
  readonly trustProxy: boolean
  readonly compression: Compression | undefined
  wroteThisTurn: boolean
  waiting: Exchange[]
}

/** A request and its reply, or the failure to make one; `tracked`: not via polka. */
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
 * halved pipelined plaintext's rate (`bench/techempower.ts`).
 */
const MAX_WAITING = 128

/** Asks the request cycle (the successor's, once one took over) for the reply to `req`. */
export function answerRequest(
  writer: Writer,
  req: IncomingMessage,
  res: ServerResponse,
  tracked: boolean,
): void {
  const init = new SocketRequest(req, writer.trustProxy)
  const exchange = { writer, req, res, init, tracked, reply: undefined, error: undefined }
  respondTo(writer.cycle.successor ?? writer.cycle, init, exchange, ready)
}

/** A reply ready: written now when it is the turn's first, else at the turn's end. */
function ready(exchange: Exchange, reply: Reply | undefined, error: unknown): void {
  exchange.reply = reply
  exchange.error = error
  const writer = exchange.writer
  if (!writer.wroteThisTurn) {
    writer.wroteThisTurn = true
    setImmediate(writeWaiting, writer, true)
    writeReply(exchange)
  } else if (writer.waiting.push(exchange) === MAX_WAITING) writeWaiting(writer, false)
}

function writeWaiting(writer: Writer, turnEnded: boolean): void {
  if (turnEnded) writer.wroteThisTurn = false
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
    if (exchange.tracked) writer.tracker.replied(req, res, handedOver)
  } catch (thrown) {
    failed(writer, res, thrown)
  }
}

/**
 * Serialises and writes a reply, compressed here or off the event loop; true when it went to the
 * socket whole within `end()`. HEAD is serialised and compressed as its GET, then sent without the
 * body (test/browser/cross-origin.test.ts compares their headers).
 */
function send({ writer, res, init }: Exchange, reply: Reply): boolean {
  const compression = writer.compression
  const head = init.method === 'HEAD' && compression !== undefined
  const wire = serialize(reply, head ? 'GET' : init.method, writer.cycle.securityHeaders, init)
  if (compression === undefined) return write(writer, res, wire)
  return compression.apply(wire, init, (coded, thrown) =>
    coded === undefined
      ? failed(writer, res, thrown)
      : write(writer, res, head ? withoutBody(coded) : coded),
  )
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
