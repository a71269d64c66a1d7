import { kernelErrors } from '../error-codes.js'
import type { FwConfig } from '../config.js'
import type { RequestCycle } from '../request-cycle-deps.js'
import type { RunningServer } from './server.js'
import type { StaticMount, StaticOptions } from './static-files.js'

/** Where a listening kernel accepts connections. */
export interface ListeningAddress {
  readonly port: number
  readonly host: string
  /** `http://host:port`, with an IPv6 host in brackets. */
  readonly url: string
}

/**
 * A kernel's HTTP side: the static mounts declared before listening, and the server while it runs.
 * polka, sirv and the server module load on the first `start()`: commands that never serve
 * (`route:list`, `down`) skip them.
 */
export class Serving {
  readonly #statics: StaticMount[] = []
  #server: RunningServer | undefined

  /** Serves a folder under a URL prefix (sirv, on the socket, before the pipeline). */
  mount(prefix: string, dir: string, options: StaticOptions): void {
    this.#statics.push({ prefix: `/${prefix.replace(/^\/+|\/+$/g, '')}`, dir, ...options })
  }

  /** Fails unless the server is stopped: a kernel listens once at a time. */
  assertIdle(): void {
    if (this.#server !== undefined) {
      throw kernelErrors.error('FW_ERR_KERNEL_STATE', {
        action: 'listen',
        state: 'already listening',
        expected: 'not listening: call close() first',
      })
    }
  }

  async start(
    cycle: RequestCycle,
    http: Pick<FwConfig['http'], 'port' | 'host' | 'trust_proxy' | 'compression'>,
  ): Promise<ListeningAddress> {
    const { startServer } = await import('./server.js')
    this.#server = await startServer(cycle, {
      port: http.port,
      host: http.host,
      trustProxy: http.trust_proxy,
      compression: http.compression,
      statics: this.#statics,
    })
    const { address, family, port } = this.#server.address
    const shown = family === 'IPv6' ? `[${address}]` : address
    return { port, host: address, url: `http://${shown}:${port}` }
  }

  /** Stops accepting and drains (see `Kernel.close`); nothing to do when not listening. */
  async stop(timeoutMs: number, delayMs = 0): Promise<void> {
    await this.#server?.close(timeoutMs, delayMs)
    this.#server = undefined
  }
}
