// What the polka + pg baselines (server-products-pg.ts, server-conduit-pg.ts) share: JSON replies
// with a Content-Length, a 500 for a thrown error, and serving on a loopback port announced to the
// parent (server-ipc.ts), closing the pool when the parent goes away.
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import polka from 'polka'
import { announce } from './server-ipc.js'

/** A polka app. */
export type App = ReturnType<typeof polka>

/** Answers `body` as JSON with `status`. */
export function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body)
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('content-length', Buffer.byteLength(json))
  res.end(json)
}

/** A polka app whose thrown errors answer 500 JSON. */
export function jsonApp(): App {
  return polka({
    onError: (error, _req, res) =>
      send(res, 500, { error: 'server_error', message: String(error) }),
  })
}

/** Serves `app` on a loopback port and announces it; `pool` is ended when the parent goes away. */
export function serve(app: App, pool: { end(): Promise<void> }): void {
  app.listen(0, '127.0.0.1', () => {
    const server = app.server
    announce((server.address() as AddressInfo).port, () => {
      server.close()
      pool.end().catch(() => {})
    })
  })
}
