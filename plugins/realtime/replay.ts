/** One event as it goes on the wire: its id and its whole SSE frame. */
export interface Frame {
  readonly id: string
  readonly bytes: Buffer
}

/** Bounds of the replay buffers. */
export interface ReplayLimits {
  /** Events kept per channel (the oldest leaves first). */
  readonly events: number
  /** Channels kept; past it, the channel published to least recently is forgotten. */
  readonly channels: number
  /** Bytes of frames kept over every channel; past it, least recent channels are forgotten. */
  readonly bytes: number
}

interface ChannelBuffer {
  readonly frames: Frame[]
  bytes: number
  /** The id of the newest event dropped: a client that saw it has missed nothing kept. */
  dropped: string | undefined
}

/** What a `Last-Event-ID` finds in a channel's buffer. */
export type Resumption =
  { readonly found: true; readonly frames: readonly Frame[] } | { readonly found: false }

/**
 * The last events of each channel, for clients that reconnect with `Last-Event-ID`. Every
 * instance keeps every channel's events (whoever published them, wherever their subscribers are)
 * in the order PostgreSQL delivered them, which is one order for every listener: a client that
 * reconnects to another instance finds its id there and the same events after it. Memory is
 * bounded three ways ({@link ReplayLimits}); test/e2e/realtime-cluster.test.ts resumes across
 * instances, test/plugins/realtime/replay.test.ts the bounds.
 */
export class ReplayBuffers {
  readonly #limits: ReplayLimits
  /** In order of last publication: the first entry is the one to forget first. */
  readonly #channels = new Map<string, ChannelBuffer>()
  #bytes = 0

  constructor(limits: ReplayLimits) {
    this.#limits = limits
  }

  /** Bytes held over every channel. */
  get bytes(): number {
    return this.#bytes
  }

  /** Keeps `frame` as the newest event of `channel`. */
  add(channel: string, frame: Frame): void {
    if (this.#limits.events === 0) return
    let buffer = this.#channels.get(channel)
    if (buffer === undefined) buffer = { frames: [], bytes: 0, dropped: undefined }
    else this.#channels.delete(channel) // re-inserted last: most recently published
    this.#channels.set(channel, buffer)
    buffer.frames.push(frame)
    buffer.bytes += frame.bytes.length
    this.#bytes += frame.bytes.length
    if (buffer.frames.length > this.#limits.events) this.#dropOldest(buffer)
    this.#evict(channel)
  }

  /** The events after `lastId` on `channel`; `found: false` when the buffer no longer has it. */
  after(channel: string, lastId: string): Resumption {
    const buffer = this.#channels.get(channel)
    if (buffer === undefined) return { found: false }
    const frames = buffer.frames
    for (let i = frames.length - 1; i >= 0; i--)
      if (frames[i]!.id === lastId) return { found: true, frames: frames.slice(i + 1) }
    return lastId === buffer.dropped ? { found: true, frames: frames.slice() } : { found: false }
  }

  /** Forgets everything: events may have been missed (the notification connection was lost). */
  clear(): void {
    this.#channels.clear()
    this.#bytes = 0
  }

  /** Forgets least recently published channels (never `keep`) until within the limits. */
  #evict(keep: string): void {
    for (const [name, buffer] of this.#channels) {
      if (this.#channels.size <= this.#limits.channels && this.#bytes <= this.#limits.bytes) return
      if (name === keep) continue
      this.#channels.delete(name)
      this.#bytes -= buffer.bytes
    }
    // Only `keep` is left and it alone is over the byte bound: drop its oldest events.
    const own = this.#channels.get(keep)
    while (own !== undefined && this.#bytes > this.#limits.bytes && own.frames.length > 1)
      this.#dropOldest(own)
  }

  #dropOldest(buffer: ChannelBuffer): void {
    const dropped = buffer.frames.shift()!
    buffer.bytes -= dropped.bytes.length
    this.#bytes -= dropped.bytes.length
    buffer.dropped = dropped.id
  }
}
