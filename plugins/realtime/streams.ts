import { Readable } from 'node:stream'

/** Settings of the open streams. */
export interface StreamLimits {
  /** Milliseconds between heartbeats (an SSE comment line); 0: none. */
  readonly heartbeatMs: number
  /** Bytes a stream may hold unsent before it is disconnected. */
  readonly maxBufferedBytes: number
  /** The reconnection delay sent to clients (`retry:`), milliseconds. */
  readonly retryMs: number
}

/** Why a stream was dropped by the server, as the warning logs it. */
export class SlowSubscriberError extends Error {
  constructor(channel: string, buffered: number, limit: number) {
    super(
      `realtime: a subscriber of '${channel}' held ${buffered} bytes unsent (limit ${limit}): disconnected; its client reconnects with Last-Event-ID`,
    )
    this.name = 'SlowSubscriberError'
  }
}

/**
 * One client's stream: a readable the server pipes to the response. Events are pushed as shared
 * buffers (one per event, whatever the number of subscribers); nothing per stream but its queue.
 */
export class EventStream extends Readable {
  readonly channel: string
  /** Bytes of the events replayed at the start: they may wait on top of the limit. */
  readonly replayed: number

  constructor(channel: string, replayed: number) {
    // A small high-water mark: only the unsent queue counts against the limit, not a read-ahead.
    super({ highWaterMark: 1024 })
    this.channel = channel
    this.replayed = replayed
  }

  override _read(): void {}
}

const HEARTBEAT = Buffer.from(':\n\n')
const STOPPING = Buffer.from(': server stopping\n\n')

/**
 * The open streams of this process, by channel. The rule for slow clients (docs/realtime.md
 * "Backpressure"): an event (or heartbeat) that would leave a stream holding more than
 * `maxBufferedBytes` unsent disconnects it instead (the stream fails, the server closes its
 * socket); the client's EventSource reconnects with `Last-Event-ID` and gets the replay buffer's
 * events after it. So a stream never holds more than the limit plus one event, plus, for a
 * resumed stream, the events it was replayed (bounded by the replay buffer)
 * (test/plugins/realtime/realtime.test.ts "disconnects a client that stops reading").
 */
export class StreamHub {
  readonly #limits: StreamLimits
  readonly #channels = new Map<string, Set<EventStream>>()
  #count = 0
  #heartbeat: NodeJS.Timeout | undefined
  readonly #retry: Buffer

  constructor(limits: StreamLimits) {
    this.#limits = limits
    this.#retry = Buffer.from(`retry: ${limits.retryMs}\n\n`)
  }

  /** What a stream gets when the instance stops: the `retry:` hint and a comment saying why. */
  get stoppingFrame(): Buffer {
    return Buffer.concat([this.#retry, STOPPING])
  }

  /** Streams open now. */
  get size(): number {
    return this.#count
  }

  /** A new stream on `channel`, the `retry:` hint and `first` (replayed events) queued. */
  open(channel: string, first: readonly Buffer[]): EventStream {
    const stream = new EventStream(
      channel,
      first.reduce((n, bytes) => n + bytes.length, 0),
    )
    stream.push(this.#retry)
    for (const bytes of first) stream.push(bytes)
    let set = this.#channels.get(channel)
    if (set === undefined) this.#channels.set(channel, (set = new Set()))
    set.add(stream)
    this.#count++
    const forget = (): void => this.#forget(stream)
    // The response closed (the client went away): the pipe unpipes, which pauses the stream with
    // no reader left. A HEAD answer or a failed write destroys it instead.
    stream.on('pause', () =>
      process.nextTick(() => {
        if (stream.listenerCount('data') === 0) stream.destroy()
      }),
    )
    stream.once('close', forget)
    // A stream disconnected before the server pipes it (events came while the handler still ran)
    // fails with no reader: the failure is the documented disconnect, never the process's end.
    stream.on('error', () => undefined)
    this.#startHeartbeat()
    return stream
  }

  /** Queues `bytes` on every stream of `channel`, disconnecting those over the limit. */
  deliver(channel: string, bytes: Buffer): void {
    const set = this.#channels.get(channel)
    if (set !== undefined) for (const stream of set) this.#push(stream, bytes)
  }

  /** Queues `bytes` on every open stream. */
  broadcast(bytes: Buffer): void {
    for (const set of this.#channels.values()) for (const stream of set) this.#push(stream, bytes)
  }

  /**
   * Ends every stream after what it holds and a `: server stopping` comment (the clients
   * reconnect elsewhere after the `retry:` delay); the responses end, so the server's drain is
   * not held up.
   */
  endAll(): void {
    clearInterval(this.#heartbeat)
    this.#heartbeat = undefined
    for (const set of this.#channels.values())
      for (const stream of set) {
        stream.push(STOPPING)
        stream.push(null)
      }
  }

  #push(stream: EventStream, bytes: Buffer): void {
    if (stream.destroyed) return
    const buffered = stream.readableLength
    if (buffered + bytes.length > this.#limits.maxBufferedBytes + stream.replayed) {
      stream.destroy(
        new SlowSubscriberError(stream.channel, buffered, this.#limits.maxBufferedBytes),
      )
      return
    }
    stream.push(bytes)
  }

  #forget(stream: EventStream): void {
    const set = this.#channels.get(stream.channel)
    if (set === undefined || !set.delete(stream)) return
    this.#count--
    if (set.size === 0) this.#channels.delete(stream.channel)
    if (this.#count === 0) {
      clearInterval(this.#heartbeat)
      this.#heartbeat = undefined
    }
  }

  /** One timer for the process while any stream is open: a comment line on each. */
  #startHeartbeat(): void {
    if (this.#heartbeat !== undefined || this.#limits.heartbeatMs === 0) return
    this.#heartbeat = setInterval(() => this.broadcast(HEARTBEAT), this.#limits.heartbeatMs)
    this.#heartbeat.unref()
  }
}
