import { PassThrough } from 'node:stream'
import { definePlugin, Reply, send, type RequestContext } from 'fw'
import { DEV_CLIENT } from './client-script.js'
import type { LoadFailure } from './load-failure.js'

/** Where the page's script listens for reloads (an EventSource) and where that script is served. */
export const EVENTS_PATH = '/_fw/dev/events'
export const CLIENT_PATH = '/_fw/dev/client.js'

/** What the page is told after a change was served. */
export interface ServedChange {
  /** The changed files, relative to the app root. */
  readonly changed: readonly string[]
  /** What was done about them, in a few words ("app rebuilt", "served as is"). */
  readonly rebuilt: string
  readonly ms: number
}

const CLIENT_BYTES = new TextEncoder().encode(DEV_CLIENT)

/** A heartbeat keeps proxies from closing an idle stream and finds pages that went away. */
const HEARTBEAT_MS = 15_000

/**
 * The open pages of `fw dev`, each an EventSource on {@link EVENTS_PATH}: told to reload after a
 * change was served, and the current load failure (the overlay) until a save fixes it. Lives as
 * long as the development server, across builds of the app.
 */
export class ReloadChannel {
  readonly #streams = new Set<PassThrough>()
  #build = 0
  #failure: LoadFailure | undefined
  readonly #heartbeat = setInterval(() => this.#send('ping', {}), HEARTBEAT_MS).unref()

  /** How many changes were served: a page is rendered at one and told it again on its stream. */
  get build(): number {
    return this.#build
  }

  /** A new stream for a page: told the build and the failure now. */
  open(): PassThrough {
    const stream = new PassThrough()
    this.#streams.add(stream)
    stream.write(`retry: 500\n`)
    this.#write(stream, 'hello', { build: this.#build, failure: this.#failure ?? null })
    return stream
  }

  /** Shows `failure` on every open page (and on pages opened later) until the next success. */
  fail(failure: LoadFailure): void {
    this.#failure = failure
    this.#send('failure', failure)
  }

  /** Tells every open page to reload, and what changed. */
  served(change: ServedChange): void {
    this.#failure = undefined
    this.#build += 1
    this.#send('reload', { build: this.#build, ...change })
  }

  /** Ends every stream (before the server drains: an open EventSource would hold it). */
  close(): void {
    clearInterval(this.#heartbeat)
    for (const stream of this.#streams) stream.end()
    this.#streams.clear()
  }

  #send(event: string, data: unknown): void {
    for (const stream of this.#streams) {
      // A page that went away unpiped its stream: drop it rather than buffer for nobody.
      if (stream.readableFlowing === false || stream.destroyed) {
        stream.destroy()
        this.#streams.delete(stream)
      } else this.#write(stream, event, data)
    }
  }

  #write(stream: PassThrough, event: string, data: unknown): void {
    stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }
}

/**
 * The page script's tag, with the request's CSP nonce when it has one and the build the page was
 * rendered at: a change served before the page's stream opened is told by the stream's `hello`.
 */
function clientTag(ctx: RequestContext, build: number): string {
  const nonce = ctx.state.cspNonce
  const attribute = nonce === undefined ? '' : ` nonce="${nonce.replace(/[^\w+/=-]/g, '')}"`
  return `<script src="${CLIENT_PATH}" data-build="${build}" defer${attribute}></script>`
}

/**
 * `fw dev`'s plugin, registered on every build of the app and never by `fw serve`: the reload
 * stream, the page script, and that script's tag before the last `</body>` of every HTML page.
 */
export const reloadPlugin = definePlugin<{ channel: ReloadChannel }>({
  name: 'dev-reload',
  setup(kernel, { channel }) {
    kernel.router.get(EVENTS_PATH.slice(1), () =>
      new Reply(200, { kind: 'stream', value: channel.open() })
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store'),
    )
    kernel.router.get(CLIENT_PATH.slice(1), () =>
      send(CLIENT_BYTES, 'text/javascript; charset=utf-8').header('cache-control', 'no-store'),
    )
    kernel.hooks.render.tap({ name: 'dev-reload', stage: 200 }, (reply, ctx) => {
      const body = reply.body
      if (body.kind !== 'html') return reply
      const at = body.value.toLowerCase().lastIndexOf('</body>')
      if (at === -1) return reply
      reply.body = {
        kind: 'html',
        value: `${body.value.slice(0, at)}${clientTag(ctx, channel.build)}${body.value.slice(at)}`,
      }
      return reply
    })
  },
})
