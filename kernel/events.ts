import { performance } from 'node:perf_hooks'

/**
 * The phases a request or a boot records (`phase.completed`, `kernel.recordBootPhase`), by name:
 * the kernel's own, the framework phases `Server-Timing` reports (plugins/debug/README.md "What an
 * annotated response carries"). A plugin that times a phase of its own declares its name by
 * declaration merging, so a typo fails to compile:
 *
 * @example
 * declare module 'fw' {
 *   interface PhaseNames {
 *     'db-connect': true
 *   }
 * }
 */
export interface PhaseNames {
  bootstrap: true
  providers: true
  routing: true
  middleware: true
  controller: true
  action: true
}

/** A phase name: a key of {@link PhaseNames}. */
export type PhaseName = keyof PhaseNames

/**
 * Every event type a request can record, with its data. Plugins add their own by declaration
 * merging, so a typo in an event type fails to compile:
 *
 * @example
 * declare module 'fw' {
 *   interface EventMap {
 *     'cache.missed': { key: string }
 *   }
 * }
 */
export interface EventMap {
  /** The kernel took the request. */
  'request.received': { method: string; path: string }
  /** A framework phase finished; `start` is relative to the request's start, like `at`. */
  'phase.completed': { name: PhaseName; start: number; duration: number }
  /** A route answered the request. `path` is the declared pattern. */
  'route.matched': {
    method: string
    path: string
    name: string | undefined
    handler: string
    params: Readonly<Record<string, string>>
  }
  /** Nothing matched: `allowed` lists the methods the path has (empty for a 404). */
  'route.missed': { method: string; path: string; allowed: readonly string[] }
  /** Something was thrown while answering. `status` is what the client got. */
  'exception.raised': { name: string; message: string; code: string | undefined; status: number }
  /** The reply left the pipeline (before the server wrote it). */
  'response.prepared': { status: number }
}

/** The type of an event: a key of {@link EventMap}, `<area>.<past-verb>`. */
export type EventType = keyof EventMap

/** One recorded event. `at` is milliseconds since the request started. */
export interface FwEvent<T extends EventType = EventType> {
  readonly type: T
  readonly at: number
  readonly data: Readonly<EventMap[T]>
}

/** Any recorded event, discriminated on `type`. */
export type AnyEvent = { [T in EventType]: FwEvent<T> }[EventType]

/**
 * A request's append-only event log. The kernel and plugins `record`; everything that reports on a
 * request (headers, debug payloads, log lines) reads it through `all`/`ofType` and derives its view
 * as a pure function. Recording is one object allocation and one array push: cheap enough to stay
 * on whether or not anything reads the log (bench/event-log.ts measures it).
 */
export class EventLog {
  /** `performance.now()` when the request started: `at` values are relative to it. */
  readonly origin: number
  readonly #events: AnyEvent[] = []

  constructor(origin: number = performance.now()) {
    this.origin = origin
  }

  /** Milliseconds since the request started. */
  now(): number {
    return performance.now() - this.origin
  }

  /** Appends an event stamped now (or at `at`, relative to the request's start). */
  record<T extends EventType>(type: T, data: EventMap[T], at: number = this.now()): void {
    this.#events.push({ type, at, data } as AnyEvent)
  }

  /** Every event so far, oldest first. The array is a read-only view, not a copy. */
  all(): readonly AnyEvent[] {
    return this.#events
  }

  /** The events of one type, oldest first. */
  ofType<T extends EventType>(type: T): FwEvent<T>[] {
    const out: FwEvent<T>[] = []
    for (const e of this.#events) if (e.type === type) out.push(e as FwEvent<T>)
    return out
  }

  /** How many events were recorded. */
  get size(): number {
    return this.#events.length
  }

  /**
   * Times `fn` as the phase `name` and records a `phase.completed` event, also when `fn` throws.
   * Returns what `fn` returns.
   */
  async phase<R>(name: PhaseName, fn: () => R | Promise<R>): Promise<R> {
    const start = this.now()
    try {
      return await fn()
    } finally {
      this.phaseEnded(name, start)
    }
  }

  /** Records the phase `name`, begun at `start`, as ended now (`phase.completed`); returns now. */
  phaseEnded(name: PhaseName, start: number): number {
    const end = this.now()
    this.record('phase.completed', { name, start, duration: end - start }, end)
    return end
  }
}
