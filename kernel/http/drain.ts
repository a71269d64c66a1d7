import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

/**
 * How long a keep-alive socket must have been idle before draining closes it. A busy client writes
 * its next request within microseconds of reading the last answer; closing its socket in that gap
 * loses the request (the bytes are on the wire, the socket is gone). During the grace such a
 * request arrives, is answered with `Connection: close`, and the client stops on that socket.
 */
export const IDLE_GRACE_MS = 1_000

/** One accepted socket, as draining needs to know it. */
interface Connection {
  /** Requests read on this socket and not answered yet (more than one when pipelined). */
  pending: number
  /** The latest request's response: the one to answer with `Connection: close` when draining. */
  latest: ServerResponse | undefined
  /** The response switched to `Connection: close`, and whether it was keep-alive before. */
  closing: ServerResponse | undefined
  closingWasKeepAlive: boolean
  /** `performance.now()` when the socket was accepted or its last response ended. */
  idleSince: number
  /** `socket.bytesRead` then: more bytes since means a request is arriving. */
  bytesAtIdle: number
}

/** What {@link trackConnections} gives the server. */
export interface ConnectionTracker {
  /**
   * Called for every request before anything answers it (sirv's as well as the pipeline's). With
   * `untracked`, the response's end is watched with a listener; otherwise the server promises to
   * call {@link replied} once the reply is written (no listener per request on the hot path).
   */
  request(req: IncomingMessage, res: ServerResponse, untracked?: boolean): void
  /**
   * `res`, the reply to `req`, is handed to Node (or failed): its socket counts as answered now
   * when `whole` (written within `end()`) and nothing is buffered, else when `res` closes.
   */
  replied(req: IncomingMessage, res: ServerResponse, whole: boolean): void
  /**
   * Answers in flight now say `Connection: close`, and through `delayMs` every answer does while
   * connections are still accepted (a load balancer sends until it has seen readiness fail).
   * Then answers keep their connections while the accept queue empties, the listener closes, and
   * every request already read or arriving on an open socket is answered with `close`; a socket
   * idle for the grace is closed; after `timeoutMs` every socket is. Resolves when the listener
   * and the last socket closed.
   */
  drain(timeoutMs: number, delayMs?: number): Promise<void>
}

/**
 * Tracks the sockets of `server` so that it can stop without losing a request: Node's
 * `server.close()` closes idle keep-alive sockets at once (Node ≥ 19), racing a client that is
 * writing its next request on one, and leaves responses saying `Connection: keep-alive`, so busy
 * clients keep sending until the sockets are cut.
 */
export function trackConnections(server: Server, graceMs = IDLE_GRACE_MS): ConnectionTracker {
  return new Connections(server, graceMs)
}

/** The sockets of one server, each with its requests in flight (see {@link trackConnections}). */
class Connections implements ConnectionTracker {
  readonly #server: Server
  readonly #graceMs: number
  readonly #connections = new Map<Socket, Connection>()
  /** True while every answer says `Connection: close`. */
  #draining = false
  /** Connections accepted so far: draining closes the listener after a loop turn without one. */
  #accepts = 0

  constructor(server: Server, graceMs: number) {
    this.#server = server
    this.#graceMs = graceMs
    server.on('connection', (socket: Socket) => this.#accept(socket))
  }

  #accept(socket: Socket): void {
    this.#accepts++
    this.#connections.set(socket, {
      pending: 0,
      latest: undefined,
      closing: undefined,
      closingWasKeepAlive: false,
      idleSince: performance.now(),
      bytesAtIdle: socket.bytesRead,
    })
    socket.once('close', () => this.#connections.delete(socket))
  }

  request(req: IncomingMessage, res: ServerResponse, untracked = false): void {
    const socket = req.socket
    const c = this.#connections.get(socket)
    if (c === undefined) return
    c.pending++
    c.latest = res
    if (this.#draining) answerWithClose(c, res)
    if (untracked) res.once('close', () => this.#answered(socket))
  }

  replied(req: IncomingMessage, res: ServerResponse, whole: boolean): void {
    // The socket is gone when the client went away (or its request broke) before the answer.
    const socket = req.socket as Socket | null
    if (socket === null) return
    if (whole && socket.writableLength === 0) this.#answered(socket)
    else res.once('close', () => this.#answered(socket))
  }

  #answered(socket: Socket): void {
    const c = this.#connections.get(socket)
    if (c === undefined || c.pending === 0) return
    if (--c.pending === 0) {
      c.idleSince = performance.now()
      c.bytesAtIdle = socket.bytesRead
    }
  }

  drain(timeoutMs: number, delayMs = 0): Promise<void> {
    const grace = Math.min(this.#graceMs, timeoutMs)
    // Answers in flight now say `close`; through the delay, every answer does.
    this.#goAway()
    return new Promise<void>((resolve) => {
      // Checked in the check phase, after a poll phase has read what the sockets hold: after a
      // long synchronous stretch a request may be waiting, unread, on a socket that looks idle.
      const closeIdle = (): void => this.#closeIdle(grace)
      const sweep = Math.max(10, Math.min(100, grace / 10))
      const sweeper = setInterval(() => setImmediate(closeIdle), sweep)
      const deadline = setTimeout(() => this.#closeAll(), delayMs + timeoutMs)
      sweeper.unref()
      deadline.unref()
      setImmediate(closeIdle)
      const closed = (): void => {
        clearInterval(sweeper)
        clearTimeout(deadline)
        resolve()
      }
      // The delay: still accepting (and telling clients to go). Then answers keep their
      // connection again (those already marked keep their `close`): a client that reconnects
      // after each `close` answer (every keep-alive agent does) stops doing so, and the accept
      // queue empties before the listener closes.
      setTimeout(() => {
        this.#draining = false
        this.#closeListenerWhenQuiet(grace, timeoutMs, closeIdle, closed)
      }, delayMs).unref()
    })
  }

  /** Clients are told to go: every answer from now on says `Connection: close`. */
  #goAway(): void {
    this.#draining = true
    for (const c of this.#connections.values()) if (c.latest) answerWithClose(c, c.latest)
  }

  /** Only while clients are told to go: a socket idle for the grace is closed. */
  #closeIdle(grace: number): void {
    if (!this.#draining) return
    const now = performance.now()
    for (const [socket, c] of this.#connections) {
      if (c.pending > 0 || socket.bytesRead !== c.bytesAtIdle) continue
      if (now - c.idleSince >= grace) socket.destroy()
    }
  }

  /** The drain's deadline: every socket closed. */
  #closeAll(): void {
    this.#server.closeAllConnections()
    for (const socket of this.#connections.keys()) socket.destroy()
  }

  /**
   * Connections the kernel has completed but Node has not accepted yet (libuv accepts one per loop
   * turn, so under load dozens wait) are reset when the listening socket closes, and their clients
   * may have written a request already. So the listener closes while answers keep their
   * connections (nobody is reconnecting), once a loop turn accepted nothing after a short settling
   * time; only then are the clients told to go, and one that reconnects finds the port closed
   * before it writes. `closed` is called once every socket has closed.
   */
  #closeListenerWhenQuiet(
    grace: number,
    timeoutMs: number,
    closeIdle: () => void,
    closed: () => void,
  ): void {
    const started = performance.now()
    let seen = -1
    const settling = Math.min(100, grace)
    // A busy process accepts slowly (one connection per loop turn): give a full queue time to be
    // taken, up to five graces (new clients that keep coming must not hold it open).
    const longest = Math.min(timeoutMs, 5 * grace)
    const check = (): void => {
      const waited = performance.now() - started
      if ((this.#accepts === seen && waited >= settling) || waited >= longest) {
        stopAccepting(this.#server, closed)
        this.#goAway()
        setImmediate(closeIdle)
        return
      }
      seen = this.#accepts
      setImmediate(check)
    }
    setImmediate(check)
  }
}

/**
 * Only the latest response read on a socket says `Connection: close`: Node ends the socket after
 * it, and a pipelined request queued behind it would go unanswered.
 */
function answerWithClose(c: Connection, res: ServerResponse): void {
  if (res.headersSent || c.closing === res) return
  if (c.closing !== undefined && !c.closing.headersSent)
    c.closing.shouldKeepAlive = c.closingWasKeepAlive
  c.closingWasKeepAlive = res.shouldKeepAlive
  c.closing = res
  res.shouldKeepAlive = false
}

/**
 * `server.close()` without the `closeIdleConnections()` that http.Server#close runs first (Node ≥
 * 19): stops accepting, stops Node's request-timeout checks, and calls `done` once every socket has
 * closed. Idle sockets are ours to close, after the grace.
 */
function stopAccepting(server: Server, done: () => void): void {
  const own = Object.getOwnPropertyDescriptor(server, 'closeIdleConnections')
  server.closeIdleConnections = () => undefined
  try {
    server.close(() => done())
  } finally {
    if (own) Object.defineProperty(server, 'closeIdleConnections', own)
    else Reflect.deleteProperty(server, 'closeIdleConnections')
  }
}
