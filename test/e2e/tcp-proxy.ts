// A TCP proxy on 127.0.0.1 between an app and its PostgreSQL server, for fault tests: it passes
// traffic through, refuses connections (nothing listens on its port), or freezes (accepts and
// holds every connection, forwarding nothing either way), and comes back on demand. It counts the
// connections the app closed itself, so a test can tell a connection given up from one kept.
import { createServer, connect, type Server, type Socket } from 'node:net'

/** What the proxy does with connections. */
export type ProxyMode = 'pass' | 'refuse' | 'freeze'

/** A running proxy: its port, and the switch between modes. */
export interface TcpProxy {
  readonly port: number
  readonly mode: ProxyMode
  /** Connections the app ended itself (not those the proxy cut), since the proxy started. */
  readonly endedByApp: number
  /**
   * Switches mode. `refuse` stops listening and cuts every open connection (the port refuses);
   * `freeze` stops forwarding on every open connection (what arrives is read and dropped, so an
   * end from the app is still seen) and holds new ones the same way; `pass` forwards again
   * (frozen connections are cut, as a server that came back would have lost them).
   */
  set(mode: ProxyMode): Promise<void>
  close(): Promise<void>
}

/** Starts a proxy to `target` on a free port of 127.0.0.1, in `mode` (default `pass`). */
export async function startTcpProxy(
  target: { host: string; port: number },
  mode: ProxyMode = 'pass',
): Promise<TcpProxy> {
  const open = new Set<Socket>()
  let current: ProxyMode = mode
  let port = 0
  let endedByApp = 0

  const onConnection = (client: Socket): void => {
    open.add(client)
    client.on('close', () => open.delete(client))
    client.on('error', () => client.destroy())
    client.on('end', () => endedByApp++)
    if (current === 'freeze') {
      client.resume()
      return
    }
    const upstream = connect(target.port, target.host)
    open.add(upstream)
    upstream.on('close', () => {
      open.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => upstream.destroy())
    client.on('close', () => upstream.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  }

  let server: Server | undefined
  const listen = async (): Promise<void> => {
    const s = createServer(onConnection)
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        s.off('error', reject)
        resolve()
      })
    })
    port = (s.address() as { port: number }).port
    server = s
  }
  const stopListening = async (): Promise<void> => {
    const s = server
    server = undefined
    if (s !== undefined) await new Promise<void>((resolve) => s.close(() => resolve()))
  }
  const cutAll = (): void => {
    for (const socket of open) socket.destroy()
    open.clear()
  }

  if (mode !== 'refuse') await listen()
  else {
    // Reserve a port number, then let it go: connections to it are refused until `pass`.
    await listen()
    await stopListening()
  }

  return {
    get port() {
      return port
    },
    get mode() {
      return current
    },
    get endedByApp() {
      return endedByApp
    },
    async set(next) {
      if (next === current) return
      const previous = current
      current = next
      if (next === 'refuse') {
        cutAll()
        await stopListening()
        return
      }
      if (next === 'freeze') {
        // Held connections stay open and silent: what arrives from now on is dropped.
        for (const socket of open) {
          socket.unpipe()
          socket.resume()
        }
        if (server === undefined) await listen()
        return
      }
      if (previous === 'freeze') cutAll()
      if (server === undefined) await listen()
    },
    async close() {
      cutAll()
      await stopListening()
    },
  }
}
