import { createHash } from 'node:crypto'
import type { Client, Notification, QueryResult, QueryResultRow } from 'pg'

/** Called with the payload of each notification on a channel (`''` when it carried none). */
export type NotificationHandler = (payload: string) => void

/**
 * Told whether notifications of a channel are being heard: `true` once its `LISTEN` ran on a live
 * connection, `false` when that connection is lost (until it is back and listening again).
 * Notifications sent while not listening are lost: a subscriber that caches must not trust what a
 * missed notification would have invalidated (see the auth plugin's `token-cache.ts`).
 */
export type ListeningHandler = (listening: boolean) => void

/** Settings of a `PgNotifications`. */
export interface PgNotificationsOptions {
  /** The `postgresql://…` URL the dedicated connection opens. */
  readonly url: string
  /** Runs `select pg_notify(?, ?)` (the plugin's own pool, so a transaction sends on commit). */
  readonly send: (sql: string, params: unknown[]) => Promise<unknown>
  /** Told when the connection fails or cannot be made (it is retried anyway). */
  readonly warn: (message: string) => void
  /** Waits between reconnection attempts: doubling from `minDelayMs` up to `maxDelayMs`. */
  readonly minDelayMs?: number
  readonly maxDelayMs?: number
  /** Connection timeout of one attempt (default 5000 ms). */
  readonly connectTimeoutMs?: number
}

/** Options of `notify()`. */
export interface NotifyOptions {
  /**
   * Wait, at most this many ms, until every listening connection of the database has run its
   * handlers for this notification (each answers on an internal channel once they ran).
   */
  readonly confirmMs?: number
}

interface Subscription {
  readonly handlers: Set<NotificationHandler>
  readonly listening: Set<ListeningHandler>
}

// Channels are identifiers (LISTEN takes no parameter): only plain ones are accepted.
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/
/** How the listening connections show in `pg_stat_activity` (counted by `notify` to confirm). */
const APPLICATION_NAME = 'fw-notifications'
/**
 * Where a notifier that waits announces what it waits for (`?<channel>:<digest>`, sent in the same
 * statement as the notification, so every listener hears it first), and where each connection
 * confirms such a notification once it handled it (`<notifier pid>:<digest>`). Nothing else is
 * confirmed: a notification nobody waits for costs its listeners no statement.
 */
const ACK_CHANNEL = 'fw_notify_ack'
/** Announcements kept at most: one whose notification never came is forgotten past this many. */
const MAX_WANTED = 1000

function digest(channel: string, payload: string): string {
  return createHash('sha256').update(`${channel}\0${payload}`).digest('hex').slice(0, 24)
}

interface AckWaiter {
  readonly expected: number
  readonly seen: Set<number>
  readonly done: () => void
}

/**
 * PostgreSQL `LISTEN`/`NOTIFY` for one process: a dedicated `pg.Client` (a pooled connection
 * cannot hold a `LISTEN`), opened on the first `subscribe()`, that `LISTEN`s every subscribed
 * channel and hands each notification's payload to the channel's handlers. When the connection
 * drops it tells the subscribers they are not listening, reconnects with a doubling, capped delay,
 * `LISTEN`s again, and tells them they are. A notification sent with `notify({ confirmMs })` is
 * confirmed on an internal channel by each process that handled it (one `pg_notify` per such
 * notification and process); others are not. Statements on the connection run one at a time, in
 * order (test/plugins/database/notifications.test.ts).
 */
export class PgNotifications {
  readonly #options: PgNotificationsOptions
  readonly #channels = new Map<string, Subscription>()
  #client: Client | undefined
  #connecting: Promise<void> | undefined
  #retry: NodeJS.Timeout | undefined
  #failures = 0
  #closed = false
  readonly #acks = new Map<string, AckWaiter>()
  /** Notifications announced as awaited (`<notifier pid>:<digest>`), not yet handled here. */
  readonly #wanted = new Set<string>()
  /** The last statement queued on the connection: the next runs after it. */
  #tail: Promise<unknown> = Promise.resolve()

  constructor(options: PgNotificationsOptions) {
    this.#options = options
  }

  /** Whether the connection is up and has `LISTEN`ed every subscribed channel. */
  get listening(): boolean {
    return this.#client !== undefined && this.#connecting === undefined
  }

  /** Adds a handler for a channel (and connects, or `LISTEN`s on the open connection). */
  subscribe(channel: string, handler: NotificationHandler, onListening?: ListeningHandler): void {
    if (!CHANNEL.test(channel))
      throw new Error(
        `Notification channel '${channel}' is not a plain identifier: use lower-case letters, digits and '_'.`,
      )
    if (this.#closed) return
    let sub = this.#channels.get(channel)
    const fresh = sub === undefined
    sub ??= { handlers: new Set(), listening: new Set() }
    this.#channels.set(channel, sub)
    sub.handlers.add(handler)
    if (onListening !== undefined) sub.listening.add(onListening)
    if (this.#client === undefined) return this.#connectInBackground()
    if (this.#connecting !== undefined) return // the LISTENs run when the connection is made
    if (!fresh) return void onListening?.(true)
    const client = this.#client
    this.#query(client, `listen "${channel}"`).then(
      () => {
        if (this.#client === client) for (const tell of sub.listening) tell(true)
      },
      (error: unknown) => this.#lost(client, error),
    )
  }

  /**
   * Sends a notification (`select pg_notify($1, $2)`, both bound). Without `confirmMs`, or while
   * not listening, through the plugin's pool, and answers true. With it, over the listening
   * connection: first counts the database's listening connections (`pg_stat_activity`), then
   * sends, then waits until each has confirmed that its handlers ran (this one included); answers
   * false when some did not within `confirmMs` (one still connecting, one of an app that does not
   * listen on this channel, a lost connection).
   */
  async notify(channel: string, payload: string, options: NotifyOptions = {}): Promise<boolean> {
    const client = this.#client
    const pid = (client as { processID?: number | null } | undefined)?.processID
    if (options.confirmMs === undefined || !this.listening || client === undefined || !pid) {
      await this.#options.send('select pg_notify(?, ?)', [channel, payload])
      return options.confirmMs === undefined
    }
    const id = `${pid}:${digest(channel, payload)}`
    if (this.#acks.has(id)) {
      // The same notification is already waiting for its confirmations: send, do not wait twice.
      await this.#query(client, 'select pg_notify($1, $2)', [channel, payload])
      return false
    }
    const { rows } = await this.#query<{ n: number }>(
      client,
      `select count(*)::int as "n" from pg_stat_activity
       where datname = current_database() and application_name = $1`,
      [APPLICATION_NAME],
    )
    let timer: NodeJS.Timeout | undefined
    const confirmed = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), options.confirmMs)
      this.#acks.set(id, { expected: rows[0]?.n ?? 1, seen: new Set(), done: () => resolve(true) })
    })
    try {
      await this.#query(client, 'select pg_notify($1, $2), pg_notify($3, $4)', [
        ACK_CHANNEL,
        `?${channel}:${digest(channel, payload)}`,
        channel,
        payload,
      ])
      return await confirmed
    } finally {
      clearTimeout(timer)
      this.#acks.delete(id)
    }
  }

  /** Closes the connection and stops reconnecting; subscribers are told they are not listening. */
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retry)
    const client = this.#client
    this.#client = undefined
    this.#tell(false)
    await client?.end().catch(() => undefined)
  }

  /** Runs a statement on `client` once those queued before it are done (a client runs one at a time). */
  #query<Row extends QueryResultRow>(
    client: Client,
    text: string,
    params?: unknown[],
  ): Promise<QueryResult<Row>> {
    const run = this.#tail.then(() => client.query<Row>(text, params))
    this.#tail = run.catch(() => undefined)
    return run
  }

  #tell(listening: boolean): void {
    for (const sub of this.#channels.values()) for (const tell of sub.listening) tell(listening)
  }

  /** Connects with nobody waiting: a failure the connection does not handle itself is told. */
  #connectInBackground(): void {
    this.#connect().catch((error: unknown) =>
      this.#options.warn(`notifications connection failed: ${String(error)}`),
    )
  }

  #connect(): Promise<void> {
    if (this.#connecting !== undefined) return this.#connecting
    const attempt = (async () => {
      const { default: pg } = await import('pg')
      const client = new pg.Client({
        connectionString: this.#options.url,
        connectionTimeoutMillis: this.#options.connectTimeoutMs ?? 5000,
        keepAlive: true,
        application_name: APPLICATION_NAME,
      })
      this.#client = client
      client.on('notification', (message: Notification) => this.#deliver(client, message))
      // Either may come first when the connection dies; `#lost` acts once per client.
      client.on('error', (error) => this.#lost(client, error))
      client.on('end', () => this.#lost(client, new Error('connection ended')))
      try {
        await client.connect()
        await this.#query(client, `listen "${ACK_CHANNEL}"`)
        for (const channel of this.#channels.keys())
          await this.#query(client, `listen "${channel}"`)
      } catch (error) {
        this.#lost(client, error)
        return
      }
      if (this.#client !== client || this.#closed) return
      this.#failures = 0
      this.#connecting = undefined
      this.#tell(true)
    })()
    this.#connecting = attempt
    return attempt
  }

  #deliver(client: Client, message: Notification): void {
    const payload = message.payload ?? ''
    if (message.channel === ACK_CHANNEL) return this.#acknowledged(message.processId, payload)
    const sub = this.#channels.get(message.channel)
    if (sub === undefined) return
    for (const handler of sub.handlers) {
      try {
        handler(payload)
      } catch (error) {
        this.#options.warn(`notification handler on '${message.channel}' failed: ${String(error)}`)
      }
    }
    if (this.#wanted.size === 0) return
    // The handlers ran: confirm to a notifier that announced it waits.
    const ack = `${message.processId}:${digest(message.channel, payload)}`
    if (!this.#wanted.delete(ack)) return
    this.#query(client, 'select pg_notify($1, $2)', [ACK_CHANNEL, ack]).catch(() => undefined)
  }

  /** An announcement (`?<channel>:<digest>`) of a channel listened here, or a confirmation. */
  #acknowledged(notifier: number, payload: string): void {
    if (payload.startsWith('?')) {
      const colon = payload.lastIndexOf(':')
      if (!this.#channels.has(payload.slice(1, colon))) return
      if (this.#wanted.size >= MAX_WANTED) this.#wanted.clear()
      this.#wanted.add(`${notifier}:${payload.slice(colon + 1)}`)
      return
    }
    const waiter = this.#acks.get(payload)
    waiter?.seen.add(notifier)
    if (waiter !== undefined && waiter.seen.size >= waiter.expected) waiter.done()
  }

  /** The connection `client` failed: tell, drop it, and try again after a capped delay. */
  #lost(client: Client, error: unknown): void {
    if (this.#client !== client) return
    const wasListening = this.#connecting === undefined
    this.#client = undefined
    this.#connecting = undefined
    client.removeAllListeners('notification')
    client.on('error', () => undefined) // late errors of a dropped client are no news
    void client.end().catch(() => undefined)
    if (this.#closed) return
    if (wasListening) this.#tell(false)
    const min = this.#options.minDelayMs ?? 100
    const max = this.#options.maxDelayMs ?? 5000
    const delay = Math.min(max, min * 2 ** this.#failures)
    this.#failures += 1
    const message = error instanceof Error ? error.message : String(error)
    this.#options.warn(`notifications connection lost (${message}); retrying in ${delay} ms`)
    this.#retry = setTimeout(() => this.#connectInBackground(), delay)
    this.#retry.unref()
  }
}
