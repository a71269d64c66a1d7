// Whether the database can be used now, and what a request gets when it cannot: an app starts and
// serves without its database, reports it down, and recovers without a restart (the database
// plugin's README, "When the database is away").

/** SQLSTATEs that mean "the server cannot serve you now", not "your statement is wrong". */
const UNAVAILABLE_STATES = new Set([
  '57014', // query_canceled: the statement timeout fired
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
])
/** Socket-level failures: nothing answered. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'FW_ERR_DATABASE_UNAVAILABLE',
])
/** Driver and pool messages for a lost, refused or frozen connection (node-pg, knex/tarn). */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Timeout acquiring a connection|Connection ended unexpectedly|Client has encountered a connection error|Client was closed|connect ECONNREFUSED/

/**
 * True when `error` (or any error in its `cause` chain) says the database could not be reached
 * or did not answer in time, rather than that a statement was wrong: a refused or lost
 * connection, a connect or acquire timeout, the statement timeout, a server shutting down.
 */
export function isUnavailableError(error: unknown): boolean {
  return unavailableReason(error) !== undefined
}

/**
 * What made {@link isUnavailableError} say yes: the code, the error's name or the matched words of
 * the driver's message (`ECONNREFUSED`, `57014`, `KnexTimeoutError`, `Connection terminated`), so
 * always words of the lists above, never text of the error that could quote a statement.
 */
export function unavailableReason(error: unknown): string | undefined {
  const seen = new Set<unknown>()
  let current = error
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current)
    const e = current as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown }
    if (typeof e.code === 'string') {
      if (UNAVAILABLE_CODES.has(e.code) || UNAVAILABLE_STATES.has(e.code)) return e.code
      // SQLSTATE class 08: connection exception.
      if (/^08[0-9A-Z]{3}$/.test(e.code)) return e.code
    }
    if (e.name === 'KnexTimeoutError' || e.name === 'ConnectionException') return e.name
    const matched = typeof e.message === 'string' ? UNAVAILABLE_MESSAGE.exec(e.message) : null
    if (matched !== null) return matched[0]
    // AggregateError (a host with several addresses, each refused).
    const errors = (current as { errors?: unknown }).errors
    if (Array.isArray(errors)) {
      for (const inner of errors) {
        const reason = unavailableReason(inner)
        if (reason !== undefined) return reason
      }
    }
    current = e.cause
  }
  return undefined
}

/** What the database plugin knows about its connection. */
export interface Availability {
  /**
   * `ready`: migrated and seeded, statements run (a later outage shows in the statements and the
   * health check, not here); `waiting`: it could not be reached when the app started, and
   * reconnection is retried in the background; `closed`: the app is shutting down.
   */
  readonly state: 'ready' | 'waiting' | 'closed'
  /** Why the last attempt to reach it failed, while `waiting`. */
  readonly error: string | undefined
  /** Attempts made since the app started waiting. */
  readonly attempts: number
}

/**
 * The retry delays, in ms: doubling from 100 ms, capped at `capMs` (default 500 ms, so that an app
 * is serving again within about a second of its database coming back).
 */
export function backoff(attempt: number, capMs = 500): number {
  return Math.min(capMs, 100 * 2 ** Math.max(0, attempt - 1))
}

/**
 * Runs `attempt` until it succeeds, waiting {@link backoff} between failures; `onFailure` hears
 * each failure. Stops (resolving false) when `stopped()` turns true. The timer is unref'd: a
 * process that is done does not stay alive for a retry.
 */
export async function retryUntilReady(
  attempt: () => Promise<void>,
  onFailure: (error: unknown, attempts: number) => void,
  stopped: () => boolean,
  capMs?: number,
): Promise<boolean> {
  for (let n = 1; !stopped(); n++) {
    try {
      await attempt()
      return true
    } catch (error) {
      onFailure(error, n)
    }
    await new Promise<void>((resolve) => setTimeout(resolve, backoff(n, capMs)).unref())
  }
  return false
}
