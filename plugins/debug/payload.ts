// The `_debug` payload: its keys, in order, each filled by projections of the request's event log.
// The debug plugin projects the kernel's events and its own; a plugin that records events of its
// own registers the projection that reports them (`kernel.plugin('debug').project(key, fn)`), so
// the debug plugin never reads another plugin's events. A key nobody fills keeps its empty value.
import { messageOf, type AnyEvent, type EventType, type FwEvent, type RequestContext } from 'fw'

/** What the payload's projections read: the request, its log, and the figures taken at render. */
export interface PayloadInput {
  readonly ctx: RequestContext
  readonly events: readonly AnyEvent[]
  readonly status: number
  readonly id: string | undefined
  readonly time: number
  readonly memoryBytes: number
  /** The request body as parsed, when the request had one (masked by the projection). */
  readonly body: unknown
  /** Whether this user may read the dev panel's log lines, null when unknown (`devpanel`). */
  readonly devpanel?: boolean | null
}

/** What a projection is given: the payload's input, and the helpers every projection needs. */
export interface ProjectionInput extends PayloadInput {
  /** The request's events of one type, in order. */
  of<T extends EventType>(type: T): FwEvent<T>[]
  /** `value` masked by the kernel's redaction (docs/redaction.md). */
  redact(value: unknown): unknown
  /** Milliseconds rounded to hundredths, as every duration in the payload. */
  ms(value: number): number
}

/**
 * A projection of one payload key: a pure function of the request's log. `previous` is what the
 * key holds so far (its empty value, or what an earlier projection of the key returned), so two
 * plugins can report on one key (the auth plugin's user, the api plugin's application).
 *
 * @example
 * kernel.plugin('debug').project('views', (i) => i.of('view.rendered').map((e) => e.data.template))
 */
export type Projection = (input: ProjectionInput, previous: unknown) => unknown

/**
 * The payload's keys in order, each with the value it has when no projection fills it (the
 * plugin that records its events is not registered).
 */
const KEYS: ReadonlyArray<readonly [string, () => unknown]> = [
  ['time', () => null],
  ['memory', () => null],
  ['request', () => null],
  ['request_method', () => null],
  ['timing', () => ({})],
  ['queries', () => ({ count: 0, total_ms: 0, statements: [] })],
  ['route', () => null],
  ['auth', () => null],
  ['session', () => null],
  ['logs', () => []],
  ['views', () => []],
  ['models', () => []],
  ['services', () => []],
  ['migrations', () => []],
  ['exceptions', () => []],
  ['devpanel', () => false],
]

/** The events of one type, in order. */
export function eventsOf<T extends EventType>(events: readonly AnyEvent[], type: T): FwEvent<T>[] {
  const out: FwEvent<T>[] = []
  for (const e of events) if (e.type === type) out.push(e as unknown as FwEvent<T>)
  return out
}

/** Milliseconds rounded to hundredths, as every duration in the payload. */
export const roundMs = (ms: number): number => Math.round(ms * 100) / 100

/** The projections of one kernel's payload, by key, in registration order. */
export class PayloadProjections {
  readonly #byKey = new Map<string, Projection[]>()

  /** Adds a projection of `key`; it runs after those registered before it for the same key. */
  project(key: string, projection: Projection): void {
    const list = this.#byKey.get(key)
    if (list === undefined) this.#byKey.set(key, [projection])
    else list.push(projection)
  }

  /**
   * The payload: every key in order (then keys only a plugin knows, in registration order). A
   * projection that throws leaves `{error: message}` under its key; the response is unharmed.
   */
  build(payload: PayloadInput): Record<string, unknown> {
    const input: ProjectionInput = {
      ...payload,
      of: (type) => eventsOf(payload.events, type),
      redact: (value) => payload.ctx.kernel.redaction.redact(value),
      ms: roundMs,
    }
    const out: Record<string, unknown> = {}
    for (const [key, empty] of KEYS) out[key] = this.#fill(key, empty(), input)
    for (const key of this.#byKey.keys())
      if (!Object.hasOwn(out, key)) out[key] = this.#fill(key, null, input)
    return out
  }

  #fill(key: string, empty: unknown, input: ProjectionInput): unknown {
    let value = empty
    for (const projection of this.#byKey.get(key) ?? []) {
      try {
        value = projection(input, value)
      } catch (error) {
        return { error: messageOf(error) }
      }
    }
    return value
  }
}
