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
   * call {@link answered} once the reply is written (no listener per request on the hot path).
   */
  request(req: IncomingMessage, res: ServerResponse, untracked?: boolean): void
  /** The reply to a request on `socket` has been handed to the socket, or the request failed. */
  answered(socket: Socket): void
  /**
   * Stops accepting (once the connections already queued for accept are taken); answers every
   * request already read, and every one that arrives on an open socket while draining, with
   * `Connection: close`; closes a socket once it has been idle for the grace; after `timeoutMs`
   * closes every socket. With `delayMs`, keeps accepting for that long first (a load balancer
   * still sends until it has seen readiness fail), answering those connections the same way.
   * Resolves when the listener and the last socket closed.
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
  const connections = new Map<Socket, Connection>()
  let draining = false
  /** Connections accepted so far: draining closes the listener after a loop turn without one. */
  let accepts = 0
  server.on('connection', (socket: Socket) => {
    accepts++
    connections.set(socket, {
      pending: 0,
      latest: undefined,
      closing: undefined,
      closingWasKeepAlive: false,
      idleSince: performance.now(),
      bytesAtIdle: socket.bytesRead,
    })
    socket.once('close', () => connections.delete(socket))
  })

  // Only the latest response read on a socket says `Connection: close`: Node ends the socket after
  // it, and a pipelined request queued behind it would go unanswered.
  const answerWithClose = (c: Connection, res: ServerResponse): void => {
    if (res.headersSent || c.closing === res) return
    if (c.closing !== undefined && !c.closing.headersSent)
      c.closing.shouldKeepAlive = c.closingWasKeepAlive
    c.closingWasKeepAlive = res.shouldKeepAlive
    c.closing = res
    res.shouldKeepAlive = false
  }

  const answered = (socket: Socket): void => {
    const c = connections.get(socket)
    if (c === undefined || c.pending === 0) return
    if (--c.pending === 0) {
      c.idleSince = performance.now()
      c.bytesAtIdle = socket.bytesRead
    }
  }

  return {
    request(req, res, untracked = false) {
      const socket = req.socket
      const c = connections.get(socket)
      if (c === undefined) return
      c.pending++
      c.latest = res
      if (draining) answerWithClose(c, res)
      if (untracked) res.once('close', () => answered(socket))
    },

    answered,

    drain(timeoutMs, delayMs = 0) {
      draining = true
      for (const c of connections.values()) if (c.latest) answerWithClose(c, c.latest)
      const grace = Math.min(graceMs, timeoutMs)
      let started = performance.now()
      return new Promise<void>((resolve) => {
        // Checked in the check phase, after a poll phase has read what the sockets hold: after a
        // long synchronous stretch a request may be waiting, unread, on a socket that looks idle.
        const closeIdle = (): void => {
          const now = performance.now()
          for (const [socket, c] of connections) {
            if (c.pending > 0 || socket.bytesRead !== c.bytesAtIdle) continue
            if (now - c.idleSince >= grace) socket.destroy()
          }
        }
        const sweeper = setInterval(
          () => setImmediate(closeIdle),
          Math.max(10, Math.min(100, grace / 10)),
        )
        const deadline = setTimeout(() => {
          server.closeAllConnections()
          for (const socket of connections.keys()) socket.destroy()
        }, delayMs + timeoutMs)
        sweeper.unref()
        deadline.unref()
        setImmediate(closeIdle)
        // Connections the kernel has completed but Node has not accepted yet (libuv accepts one
        // per loop turn, so under load dozens wait) are reset when the listening socket closes,
        // and their clients may have written a request already. Keep accepting (and answering
        // with `Connection: close`) until a loop turn accepts nothing, or for the grace at most.
        let seen = -1
        const closeListenerWhenQuiet = (): void => {
          if (accepts === seen || performance.now() - started >= grace) {
            stopAccepting(server, () => {
              clearInterval(sweeper)
              clearTimeout(deadline)
              resolve()
            })
            return
          }
          seen = accepts
          setImmediate(closeListenerWhenQuiet)
        }
        // The delay: still accepting; the listener closes once it is over.
        setTimeout(() => {
          started = performance.now()
          setImmediate(closeListenerWhenQuiet)
        }, delayMs).unref()
      })
    },
  }
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
