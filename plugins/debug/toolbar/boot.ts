// What both deliveries share: one bar per page, exposed as `window.__fwDebugBar` (the only global
// the toolbar adds), passive error listeners, and `record()` / `reportError()`.
import { Bar } from './bar.js'
import type { DevNotices } from './dev-notices.js'
import type { Payload, ToolbarConfig } from './payload.js'

/** `window.__fwDebugBar`. */
export interface DebugBarGlobal {
  /** Reports a failure to the Errors tab (kind defaults to `reported`). */
  reportError(error: unknown, options?: { kind?: string }): void
  /** Adds a request row, as the ES module's `record()` does. */
  record(
    method: string,
    path: string,
    status: number | null,
    debugPayload?: unknown,
    options?: RecordOptions,
  ): void
  /** True while the bar is hidden behind its handle. */
  readonly hidden: boolean
  /** `inline` or `module`: the delivery that built the bar. */
  readonly delivery: 'inline' | 'module'
  /** What `fw dev`'s page script shows through the bar: a failed build, the last change. */
  readonly dev: DevNotices
}

export interface RecordOptions {
  /** Client time in milliseconds. */
  ms?: number
  /** The request body as sent (string, object, URLSearchParams, FormData). */
  body?: unknown
}

type Host = Window & { __fwDebugBar?: DebugBarGlobal }

/** The existing bar's global, if a copy of the toolbar already built one on this page. */
export function existing(): DebugBarGlobal | undefined {
  const g = (window as Host).__fwDebugBar
  return g !== null && typeof g === 'object' && typeof g.reportError === 'function' ? g : undefined
}

/** A payload from what an app passes: the `_debug` object, or a whole response body carrying it. */
function payloadOf(value: unknown): Payload | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null
  const inner = (value as { _debug?: unknown })._debug
  if (inner !== undefined)
    return inner !== null && typeof inner === 'object' ? (inner as Payload) : null
  return value as Payload
}

/** Builds the page's bar, exposes it and listens (passively) for uncaught failures. */
export function createBar(
  config: ToolbarConfig,
  delivery: 'inline' | 'module',
  nonce: string,
): Bar {
  const bar = new Bar(config, delivery === 'module', nonce)
  const global: DebugBarGlobal = {
    reportError(error, options) {
      try {
        bar.addError(options?.kind ?? 'reported', error)
      } catch {
        // reporting must never throw into the caller
      }
    },
    record(method, path, status, debugPayload, options) {
      try {
        const end = performance.now()
        const took = typeof options?.ms === 'number' && options.ms >= 0 ? options.ms : null
        const payload = payloadOf(debugPayload)
        const row = bar.add({
          method: String(method || 'GET').toUpperCase(),
          path: String(path),
          status: typeof status === 'number' && status > 0 ? status : null,
          start: took === null ? end : end - took,
          end,
          payload,
          summary: null,
          id: payload?.request?.id ?? null,
          body: options?.body,
          contentType: '',
          ...(typeof status === 'number' && status > 0 ? {} : { failure: 'no response' }),
        })
        // No `ms`: the client time is unknown, absent rather than 0 (the render is a microtask away).
        if (took === null) row.ms = null
      } catch {
        // recording must never throw into the caller
      }
    },
    get hidden() {
      return bar.hidden
    },
    delivery,
    dev: Object.freeze({
      failure: (failure) => bar.devFailure(failure),
      served: (change) => bar.devServed(change),
    } satisfies DevNotices),
  }
  Object.defineProperty(window, '__fwDebugBar', {
    value: Object.freeze(global),
    configurable: true,
    writable: false,
    enumerable: false,
  })
  // Passive: never preventDefault, so the page and the console see every failure as before.
  window.addEventListener('error', (e) => {
    if (e.error !== undefined || e.message) bar.addError('error', e.error ?? e.message)
  })
  window.addEventListener('unhandledrejection', (e) => bar.addError('unhandledrejection', e.reason))
  bar.mount()
  return bar
}
