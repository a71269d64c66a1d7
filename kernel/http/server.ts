import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import polka from 'polka'
import sirv from 'sirv'
import type { RequestInit } from '../context.js'
import { isThenable, type MaybePromise } from '../hook-runner.js'
import type { Reply } from '../reply.js'
import { IDLE_GRACE_MS, trackConnections } from './drain.js'
import { serialize } from './serialize.js'

/** A folder served as static files under a URL prefix (by sirv, before the pipeline). */
export interface StaticMount {
  readonly prefix: string
  readonly dir: string
  /** Cache-Control max-age in seconds (default 0: revalidate). */
  readonly maxAge?: number
  /** Adds `immutable` to Cache-Control: for files whose names carry a content hash. */
  readonly immutable?: boolean
}

/** How long `close()` lets requests finish before it closes every socket: 30 s. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000

/** What the HTTP server needs from the kernel. */
export interface ServerTarget {
  /** Answers a request: a reply now when every step was synchronous, else a promise of one. */
  handle(init: RequestInit): MaybePromise<Reply>
  /** Called when writing a reply failed after the pipeline (a broken stream, a closed socket). */
  onWriteError(error: unknown): void
}

/** The running server and a way to stop it gracefully. */
export interface RunningServer {
  readonly server: Server
  readonly address: AddressInfo
  /**
   * Stops accepting and drains: every request already read, and every one arriving on an open
   * socket meanwhile, is answered with `Connection: close`; an idle keep-alive socket is closed
   * after a short grace. After `timeoutMs` (default 30 s) every socket is closed. Resolves when
   * the last socket closed.
   */
  close(timeoutMs?: number): Promise<void>
}

function toInit(req: IncomingMessage, trustProxy: boolean): RequestInit {
  const forwardedProto = req.headers['x-forwarded-proto']
  const secure =
    (req.socket as TLSSocket).encrypted === true ||
    (typeof forwardedProto === 'string' &&
      forwardedProto.split(',')[0]!.trim().toLowerCase() === 'https')
  // Read only when asked: the socket's address is a call into C++ on every access.
  const ip = (): string => {
    const forwardedFor = req.headers['x-forwarded-for']
    if (trustProxy && typeof forwardedFor === 'string') return forwardedFor.split(',')[0]!.trim()
    return req.socket.remoteAddress ?? ''
  }
  // polka rewrites req.url under a mount; originalUrl is what the client sent.
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/'
  return { method: req.method ?? 'GET', url, headers: req.headers, body: req, secure, ip }
}

/**
 * Starts polka on `port`/`host`: sirv mounts first, then every other request goes through the
 * kernel's pipeline, whose reply is serialised the same way `inject()` does it.
 */
export async function startServer(
  target: ServerTarget,
  options: {
    port: number
    host: string
    trustProxy: boolean
    statics: readonly StaticMount[]
    /** How long draining leaves an idle keep-alive socket open (default {@link IDLE_GRACE_MS}). */
    idleGraceMs?: number
  },
): Promise<RunningServer> {
  const failed = (res: ServerResponse, error: unknown): void => {
    // The pipeline turns every failure into a reply; reaching here is a kernel bug.
    target.onWriteError(error)
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
    res.end('{"error":"unavailable"}')
  }
  const respond = (req: IncomingMessage, res: ServerResponse, reply: Reply): void => {
    try {
      write(res, serialize(reply, req.method ?? 'GET'), target)
    } catch (error) {
      failed(res, error)
    }
  }
  const pipeline = (req: IncomingMessage, res: ServerResponse): void => {
    let answer: MaybePromise<Reply>
    try {
      answer = target.handle(toInit(req, options.trustProxy))
    } catch (error) {
      failed(res, error)
      return
    }
    // A synchronous answer is written at once, within the socket's read callback.
    if (!isThenable(answer)) respond(req, res, answer)
    else
      answer.then(
        (reply) => respond(req, res, reply),
        (error: unknown) => failed(res, error),
      )
  }
  // polka serves the static mounts (sirv), handing a miss on to the pipeline. Requests outside
  // every mount go to the pipeline directly: polka's loop costs two promises per request.
  const mounts = options.statics.map((m) => m.prefix)
  const app = mounts.length === 0 ? undefined : polka()
  for (const mount of options.statics) {
    app!.use(
      mount.prefix,
      sirv(mount.dir, {
        dev: false,
        etag: true,
        maxAge: mount.maxAge ?? 0,
        immutable: mount.immutable ?? false,
      }),
    )
  }
  app?.use(pipeline)
  const server = createServer()
  const tracker = trackConnections(server, options.idleGraceMs ?? IDLE_GRACE_MS)
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    tracker.request(req, res)
    // polka runs its middleware loop only when no `next` is passed in.
    if (app !== undefined && mounted(mounts, req.url ?? '/'))
      void app.handler(req as never, res, undefined as never)
    else pipeline(req, res)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    server,
    address: server.address() as AddressInfo,
    close: (timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS) => tracker.drain(timeoutMs),
  }
}

function write(
  res: ServerResponse,
  wire: ReturnType<typeof serialize>,
  target: ServerTarget,
): void {
  try {
    res.writeHead(wire.status, wire.headers)
    const p = wire.payload
    if (p === undefined || typeof p === 'string' || p instanceof Uint8Array) {
      res.end(p)
      return
    }
    p.on('error', (error) => {
      target.onWriteError(error)
      res.destroy()
    })
    p.pipe(res)
  } catch (error) {
    target.onWriteError(error)
    res.destroy()
  }
}

/** True when the URL's path lies under one of the mount prefixes (as polka's `use(prefix)` matches). */
function mounted(prefixes: readonly string[], url: string): boolean {
  for (const prefix of prefixes) {
    if (!url.startsWith(prefix)) continue
    const next = url.charCodeAt(prefix.length)
    // End of the URL, '/', '?' or '#': the prefix is a whole segment.
    if (Number.isNaN(next) || next === 47 || next === 63 || next === 35) return true
  }
  return false
}
