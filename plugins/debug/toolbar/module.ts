// The ES module delivery, for single-page applications: no injection and no wrapping; the app's
// API client feeds it. Importing it builds the bar (or joins the one an inline copy built).
//
//   import { record, reportError } from '/_fw/debugbar.mjs'
//   const t0 = performance.now(); const res = await fetch(url); const body = await res.json()
//   record('GET', url, res.status, body._debug, { ms: performance.now() - t0 })
import { createBar, existing, type DebugBarGlobal, type RecordOptions } from './boot.js'
import type { ToolbarConfig } from './payload.js'

export type { RecordOptions, DebugBarGlobal }
export type { ToolbarConfig }

function bar(): DebugBarGlobal | undefined {
  try {
    const found = existing()
    if (found !== undefined) return found
    const fw = (window as unknown as { __FW__?: { debugbar?: ToolbarConfig } }).__FW__
    createBar(
      fw?.debugbar ?? {},
      'module',
      (document.querySelector('script[nonce]') as HTMLScriptElement | null)?.nonce ?? '',
    )
    return existing()
  } catch {
    return undefined
  }
}

bar()

/**
 * Records one request the app made: its method, path, status (`null` or `0` for a network
 * failure), the response's `_debug` payload (or the whole body carrying it), and the client time
 * and request body.
 */
export function record(
  method: string,
  path: string,
  status: number | null,
  debugPayload?: unknown,
  options: RecordOptions = {},
): void {
  bar()?.record(method, path, status, debugPayload, options)
}

/** Reports a failure to the Errors tab; `kind` names where it came from (default `reported`). */
export function reportError(error: unknown, options: { kind?: string } = {}): void {
  bar()?.reportError(error, options)
}
