// Server-sent events: declared channels, authorised per channel, broadcast to every instance
// through PostgreSQL LISTEN/NOTIFY, resumable from a bounded replay buffer (README.md).
import { currentContext, definePlugin, type Kernel, type Reply, type RequestContext } from 'fw'
import { RealtimeBus, type PublishedEvent } from './bus.js'
import { ChannelRegistry, type ChannelOptions } from './channels.js'
import { realtimeProjection } from './debug-projection.js'
import './events.js'
import { ReplayBuffers } from './replay.js'
import { StreamHub } from './streams.js'
import { openStream, type StreamSource } from './subscribe.js'

/** Options of the realtime plugin. */
export interface RealtimeOptions {
  /** Channel patterns to declare at setup, as {@link RealtimeApi.channel} does. */
  channels?: Readonly<Record<string, ChannelOptions>>
  /**
   * Where clients open streams: `GET /<path>/{channel}` (default `'events'`); `false` declares no
   * route (the app answers with `stream(ctx, channel)` from its own).
   */
  path?: string | false
}

/** What `kernel.plugin('realtime')` returns. */
export interface RealtimeApi {
  /**
   * Declares the channels a pattern matches (`products`, `orders.{id}`: a `{param}` is one
   * segment) and who may listen to them. Fails with `FW_ERR_REALTIME_INVALID` for an unusable
   * pattern, one declared twice, or no `authorize`.
   *
   * @example
   * realtime.channel('orders.{id}', { authorize: async (ctx, { id }) => ownsOrder(ctx, id) })
   */
  channel(pattern: string, options: ChannelOptions): void
  /**
   * Publishes `event` with `data` (JSON, at most 7,000 bytes) on `channel`, to its subscribers on
   * every instance; records `realtime.published` in the log of `ctx`, or of the current request
   * when the app runs a request scope (the database plugin's does).
   *
   * @example
   * await kernel.plugin('realtime').publish('products', 'updated', { id: 7 }, ctx)
   */
  publish(
    channel: string,
    event: string,
    data: unknown,
    ctx?: RequestContext,
  ): Promise<PublishedEvent>
  /** Answers `ctx` with the event stream of `channel` (what the plugin's route does). */
  stream(ctx: RequestContext, channel: string): Promise<Reply>
  /** Streams open in this process. */
  readonly subscribers: number
}

declare module 'fw' {
  interface PluginApis {
    realtime: RealtimeApi
  }
  interface FwConfig {
    realtime: {
      /** Seconds between heartbeats on each stream (0: none). */
      heartbeat: number
      /** Events kept per channel for `Last-Event-ID` (0: no replay). */
      replay_events: number
      /** Channels whose events are kept (the least recently published are forgotten first). */
      replay_channels: number
      /** Bytes of events kept over every channel. */
      replay_bytes: number
      /** Bytes a stream may hold unsent before it is disconnected (a slow client). */
      max_buffered_bytes: number
      /** Streams one process holds at most; past it, 503. */
      max_subscribers: number
      /** Milliseconds a client waits before reconnecting (sent as `retry:`). */
      retry_ms: number
    }
  }
}

/** Options of the streams and buffers, from the config. */
function partsOf(kernel: Kernel): { hub: StreamHub; replay: ReplayBuffers } {
  const c = kernel.config.realtime
  return {
    hub: new StreamHub({
      heartbeatMs: c.heartbeat * 1000,
      maxBufferedBytes: c.max_buffered_bytes,
      retryMs: c.retry_ms,
    }),
    replay: new ReplayBuffers({
      events: c.replay_events,
      channels: c.replay_channels,
      bytes: c.replay_bytes,
    }),
  }
}

/**
 * Server-sent events. Clients open `GET /events/{channel}` (an `EventSource`); the app publishes
 * with `publish(channel, event, data)`; every instance on the same PostgreSQL database delivers
 * it. Heartbeats keep idle streams open through proxies; `Last-Event-ID` resumes from a bounded
 * replay buffer; a client that falls behind is disconnected; a stop ends every stream first.
 *
 * @example
 * kernel.register(realtime, { channels: { products: { authorize: 'public' } } })
 * await kernel.plugin('realtime').publish('products', 'updated', { id: 7 })
 */
export default definePlugin<RealtimeOptions | undefined, RealtimeApi>({
  name: 'realtime',
  // database: broadcast across instances when it is PostgreSQL; debug: `_debug.realtime`.
  optionalDependsOn: ['database', 'debug'],
  config: {
    defaults: {
      realtime: {
        heartbeat: 15,
        replay_events: 100,
        replay_channels: 1000,
        replay_bytes: 8 * 1024 * 1024,
        max_buffered_bytes: 64 * 1024,
        max_subscribers: 20_000,
        retry_ms: 2000,
      },
    },
    schema: {
      'realtime.heartbeat': 'seconds',
      'realtime.replay_events': { kind: 'integer', min: 0, max: 100_000 },
      'realtime.replay_channels': { kind: 'integer', min: 1 },
      'realtime.replay_bytes': { kind: 'integer', min: 0 },
      'realtime.max_buffered_bytes': { kind: 'integer', min: 8 * 1024 },
      'realtime.max_subscribers': { kind: 'integer', min: 0 },
      'realtime.retry_ms': { kind: 'integer', min: 0 },
    },
  },
  setup(kernel, options = {}) {
    const { hub, replay } = partsOf(kernel)
    const registry = new ChannelRegistry()
    const bus = new RealtimeBus({
      db: kernel.hasPlugin('database') ? kernel.plugin('database') : undefined,
      hub,
      replay,
      warn: (message) => kernel.logger.warn(message),
    })
    const source: StreamSource = {
      registry,
      hub,
      replay,
      bus,
      maxSubscribers: kernel.config.realtime.max_subscribers,
      stopping: () => kernel.readiness.stopping,
      retryAfterS: Math.max(1, Math.ceil(kernel.config.realtime.retry_ms / 1000)),
    }
    const api: RealtimeApi = {
      channel: (pattern, channelOptions) => registry.declare(pattern, channelOptions),
      async publish(channel, event, data, ctx = currentContext()) {
        const published = await bus.publish(channel, event, data)
        ctx?.log.record('realtime.published', { ...published })
        return published
      },
      stream: (ctx, channel) => openStream(source, ctx, channel),
      get subscribers() {
        return hub.size
      },
    }
    for (const [pattern, channelOptions] of Object.entries(options.channels ?? {}))
      api.channel(pattern, channelOptions)
    const path = options.path ?? 'events'
    if (path !== false)
      kernel.router
        .get(`${path.replace(/^\/+|\/+$/g, '')}/{channel}`, (ctx) =>
          openStream(source, ctx, ctx.params.channel ?? ''),
        )
        .name('realtime.stream')
    // Serving: listen from the start, so this instance's replay buffers hold what others publish.
    kernel.hooks.listen.tapPromise('realtime', async () => bus.listen(5000))
    if (kernel.hasPlugin('debug')) kernel.plugin('debug').project('realtime', realtimeProjection)
    // A stop ends every stream at once (clients reconnect to another instance after `retry:`),
    // so open streams never hold the drain up; the shutdown tap ends any left.
    kernel.readiness.onStopping(() => hub.endAll())
    kernel.hooks.shutdown.tapPromise({ name: 'realtime', stage: -10 }, async () => hub.endAll())
    return api
  },
})

export { MAX_DATA_BYTES, RESET_EVENT } from './bus.js'
export type { PublishedEvent } from './bus.js'
export { realtimeErrors } from './errors.js'
export type { ChannelAuthorizer, ChannelOptions } from './channels.js'
