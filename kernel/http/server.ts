import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import polka from 'polka'
import sirv from 'sirv'
import type { RequestInit } from '../context.js'
import type { Reply } from '../reply.js'
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

/** What the HTTP server needs from the kernel. */
export interface ServerTarget {
  handle(init: RequestInit): Promise<Reply>
  /** Called when writing a reply failed after the pipeline (a broken stream, a closed socket). */
  onWriteError(error: unknown): void
}

/** The running server and a way to stop it gracefully. */
export interface RunningServer {
  readonly server: Server
  readonly address: AddressInfo
  /** Stops accepting, waits for in-flight requests (at most `timeoutMs`), then closes sockets. */
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
  options: { port: number; host: string; trustProxy: boolean; statics: readonly StaticMount[] },
): Promise<RunningServer> {
  const app = polka()
  for (const mount of options.statics) {
    app.use(
      mount.prefix,
      sirv(mount.dir, {
        dev: false,
        etag: true,
        maxAge: mount.maxAge ?? 0,
        immutable: mount.immutable ?? false,
      }),
    )
  }
  let inFlight = 0
  let drained: (() => void) | undefined
  const done = (): void => {
    inFlight--
    if (inFlight === 0 && drained) drained()
  }
  const failed = (res: ServerResponse, error: unknown): void => {
    // The pipeline turns every failure into a reply; reaching here is a kernel bug.
    target.onWriteError(error)
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
    res.end('{"error":"unavailable"}')
  }
  app.use((req: IncomingMessage, res: ServerResponse) => {
    // In flight from here until the reply is handed to the socket (a streamed body may still be
    // flowing then; server.close() waits for its connection anyway).
    inFlight++
    target.handle(toInit(req, options.trustProxy)).then(
      (reply) => {
        try {
          write(res, serialize(reply, req.method ?? 'GET'), target)
        } catch (error) {
          failed(res, error)
        }
        done()
      },
      (error: unknown) => {
        failed(res, error)
        done()
      },
    )
  })
  // polka runs its middleware loop only when no `next` is passed in.
  const server = createServer((req, res) => void app.handler(req as never, res, undefined as never))
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
    close(timeoutMs = 10_000) {
      return new Promise<void>((resolve) => {
        const finish = (): void => {
          clearTimeout(timer)
          server.closeAllConnections()
          resolve()
        }
        const timer = setTimeout(finish, timeoutMs)
        timer.unref()
        server.close()
        server.closeIdleConnections()
        if (inFlight === 0) finish()
        else drained = finish
      })
    },
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
