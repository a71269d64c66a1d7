import { randomBytes } from 'node:crypto'
import type { DatabaseApi } from 'fw/plugins/database'
import { assertChannelName } from './channels.js'
import { realtimeErrors } from './errors.js'
import type { Frame, ReplayBuffers } from './replay.js'
import type { StreamHub } from './streams.js'

/** The PostgreSQL channel every instance `LISTEN`s on; the app's channel is in the payload. */
export const PG_CHANNEL = 'fw_realtime'
/** Largest JSON of an event's data: `NOTIFY` carries under 8,000 bytes, the envelope included. */
export const MAX_DATA_BYTES = 7000
/** Sent (without an id) to a client whose `Last-Event-ID` the buffer no longer holds. */
export const RESET_EVENT = 'fw-reset'
/** The frame of {@link RESET_EVENT}: no id, so the client keeps the last one it had. */
export const RESET_FRAME = Buffer.from(`event: ${RESET_EVENT}\ndata: {}\n\n`)
const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,64}$/

/** An event as published: where, what, and the id clients resume from. */
export interface PublishedEvent {
  readonly channel: string
  readonly event: string
  readonly id: string
  /** Bytes of the data's JSON. */
  readonly bytes: number
  /** Sent through PostgreSQL to every instance (false: delivered in this process only). */
  readonly shared: boolean
}

/** What travels in a notification's payload. */
interface Envelope {
  readonly c: string
  readonly i: string
  readonly e: string
  readonly d: string
}

/** The SSE frame of an event: `id`, `event`, then its data on one line (JSON has no newline). */
export function frameOf(id: string, event: string, data: string): Buffer {
  return Buffer.from(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`)
}

/**
 * Publishing and delivery. On PostgreSQL an event goes out as `NOTIFY fw_realtime` and comes back
 * through this instance's `LISTEN` as through every other's, so all of them buffer and deliver
 * events in the one order PostgreSQL gives; anywhere else (PGlite: one process owns the database;
 * no database plugin) it is delivered in this process at once.
 */
export class RealtimeBus {
  readonly #db: DatabaseApi | undefined
  readonly #hub: StreamHub
  readonly #replay: ReplayBuffers
  readonly #warn: (message: string) => void
  /** This process's part of every id it makes: ids are unique across instances. */
  readonly #origin = randomBytes(4).toString('hex')
  #sequence = 0
  #listening: Promise<void> | undefined
  #heard = false
  #lost = false
  #listeningNow = false

  constructor(options: {
    db: DatabaseApi | undefined
    hub: StreamHub
    replay: ReplayBuffers
    warn: (message: string) => void
  }) {
    this.#db = options.db
    this.#hub = options.hub
    this.#replay = options.replay
    this.#warn = options.warn
  }

  /** Whether events cross instances (the app's database is PostgreSQL). */
  get shared(): boolean {
    return this.#db?.target.kind === 'postgresql'
  }

  /**
   * Starts listening (once), resolving when the `LISTEN` runs, or after `waitMs` at most (the
   * connection keeps being retried; events before it are not heard by this instance). Undefined
   * when there is nothing to wait for.
   */
  listen(waitMs: number): Promise<void> | undefined {
    // Listening already (or nothing to listen to): no promise, no timer.
    if (!this.shared || this.#listeningNow) return undefined
    this.#listening ??= new Promise<void>((resolve) => {
      this.#db!.subscribe(
        PG_CHANNEL,
        (payload) => this.#receive(payload),
        (listening) => this.#listeningChanged(listening, resolve),
      )
    })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))
    return Promise.race([this.#listening, late]).finally(() => clearTimeout(timer))
  }

  /** Publishes `data` (JSON) as `event` on `channel`; answers what was sent. */
  async publish(channel: string, event: string, data: unknown): Promise<PublishedEvent> {
    assertChannelName(channel)
    if (typeof event !== 'string' || !EVENT_NAME.test(event) || event === RESET_EVENT)
      throw realtimeErrors.error('FW_ERR_REALTIME_INVALID', {
        what: `event ${JSON.stringify(event)}`,
        problem: `use 1 to 64 letters, digits, '_', '.', ':' or '-' ('${RESET_EVENT}' is reserved)`,
      })
    const json = jsonOf(channel, data)
    const id = `${this.#origin}.${(++this.#sequence).toString(36)}`
    const published = { channel, event, id, bytes: Buffer.byteLength(json), shared: this.shared }
    if (!this.shared) {
      this.#deliver({ c: channel, i: id, e: event, d: json })
      return published
    }
    const listening = this.listen(2000)
    if (listening !== undefined) await listening
    await this.#db!.notify(PG_CHANNEL, JSON.stringify({ c: channel, i: id, e: event, d: json }))
    return published
  }

  #receive(payload: string): void {
    let envelope: Envelope
    try {
      envelope = JSON.parse(payload) as Envelope
    } catch {
      return this.#warn(`realtime: a notification on ${PG_CHANNEL} is not JSON; ignored`)
    }
    if (typeof envelope?.c !== 'string' || typeof envelope.d !== 'string') return
    this.#deliver(envelope)
  }

  #deliver({ c: channel, i: id, e: event, d: data }: Envelope): void {
    const frame: Frame = { id, bytes: frameOf(id, event, data) }
    this.#replay.add(channel, frame)
    this.#hub.deliver(channel, frame.bytes)
  }

  /**
   * Lost, the connection may miss notifications: the buffers could hold a gap, so they are
   * forgotten (a client resuming then is told to reset). Back, the open streams are told to reset
   * (they may have missed events meanwhile), and events flow again.
   */
  #listeningChanged(listening: boolean, first: () => void): void {
    this.#listeningNow = listening
    if (listening) {
      this.#heard = true
      if (this.#lost) this.#hub.broadcast(RESET_FRAME)
      this.#lost = false
      first()
    } else if (this.#heard) {
      this.#lost = true
      this.#replay.clear()
    }
  }
}

function jsonOf(channel: string, data: unknown): string {
  let json: string | undefined
  try {
    json = JSON.stringify(data ?? null)
  } catch (error) {
    throw realtimeErrors.error('FW_ERR_REALTIME_PAYLOAD', {
      channel,
      problem: `its data cannot be serialised (${(error as Error).message})`,
    })
  }
  if (json === undefined)
    throw realtimeErrors.error('FW_ERR_REALTIME_PAYLOAD', {
      channel,
      problem: 'its data has no JSON form (a function or a symbol)',
    })
  const bytes = Buffer.byteLength(json)
  if (bytes > MAX_DATA_BYTES)
    throw realtimeErrors.error('FW_ERR_REALTIME_PAYLOAD', {
      channel,
      problem: `its data is ${bytes} bytes of JSON, over the ${MAX_DATA_BYTES} a notification carries`,
    })
  return json
}
