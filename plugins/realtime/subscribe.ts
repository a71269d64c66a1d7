import { Readable } from 'node:stream'
import { Reply, type RequestContext } from 'fw'
import { RESET_FRAME, type RealtimeBus } from './bus.js'
import { MAX_CHANNEL_LENGTH, type ChannelRegistry } from './channels.js'
import { realtimeErrors } from './errors.js'
import type { ReplayBuffers, Resumption } from './replay.js'
import type { StreamHub } from './streams.js'

/** What opening a stream needs, decided at setup. */
export interface StreamSource {
  readonly registry: ChannelRegistry
  readonly hub: StreamHub
  readonly replay: ReplayBuffers
  readonly bus: RealtimeBus
  /** Streams this process holds at most. */
  readonly maxSubscribers: number
  /** Whether the instance is stopping (no new streams then). */
  readonly stopping: () => boolean
  /** Seconds a refused client is told to wait. */
  readonly retryAfterS: number
}

/** A `Last-Event-ID` longer than any id this plugin makes is not looked up. */
const MAX_ID_LENGTH = 64

/**
 * Answers a request with the event stream of `channel`: 404 when no declared pattern matches it,
 * 403 when its `authorize` refuses, a stream that ends at once while the instance stops, 503
 * while the process holds `realtime.max_subscribers` streams; otherwise 200
 * `text/event-stream` with, for a `Last-Event-ID` found in the replay buffer, the events after it
 * first (`fw-reset` when it is not found), then every event published on the channel.
 */
export async function openStream(
  source: StreamSource,
  ctx: RequestContext,
  channel: string,
): Promise<Reply> {
  const shown = channel.slice(0, MAX_CHANNEL_LENGTH)
  const matched = source.registry.match(channel)
  if (matched === undefined) {
    ctx.log.record('realtime.refused', { channel: shown, reason: 'unknown' })
    throw realtimeErrors.httpError('FW_ERR_REALTIME_UNKNOWN_CHANNEL')
  }
  const { authorize } = matched.options
  if (authorize !== 'public' && (await authorize(ctx, matched.params)) !== true) {
    ctx.log.record('realtime.refused', { channel, reason: 'forbidden' })
    throw realtimeErrors.httpError('FW_ERR_REALTIME_FORBIDDEN')
  }
  if (source.stopping()) {
    // 200 and at once the end: an EventSource reconnects after `retry:` (to another instance by
    // then), where a 503 would make it give up for good.
    ctx.log.record('realtime.refused', { channel, reason: 'stopping' })
    return streamReply(Readable.from([source.hub.stoppingFrame]))
  }
  if (source.hub.size >= source.maxSubscribers) {
    ctx.log.record('realtime.refused', { channel, reason: 'full' })
    throw realtimeErrors.httpError('FW_ERR_REALTIME_FULL', {
      headers: { 'retry-after': String(source.retryAfterS) },
    })
  }
  // Events published before this instance listens are not heard by it: wait for the LISTEN.
  const listening = source.bus.listen(2000)
  if (listening !== undefined) await listening
  const lastId = ctx.header('last-event-id')
  let first: Buffer[] = []
  let resumed = false
  let reset = false
  if (lastId !== undefined && lastId !== '') {
    const found: Resumption =
      lastId.length <= MAX_ID_LENGTH ? source.replay.after(channel, lastId) : { found: false }
    resumed = found.found
    reset = !found.found
    first = found.found ? found.frames.map((f) => f.bytes) : [RESET_FRAME]
  }
  // Synchronous from the lookup to the subscription: no event can fall between the replayed ones
  // and the live ones.
  const stream = source.hub.open(channel, first)
  ctx.log.record('realtime.subscribed', {
    channel,
    resumed,
    replayed: resumed ? first.length : 0,
    reset,
  })
  return streamReply(stream)
}

function streamReply(stream: Readable): Reply {
  return new Reply(200, { kind: 'stream', value: stream })
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-accel-buffering', 'no')
}
