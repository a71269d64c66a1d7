import { CENSOR, isSecretKey } from './secrets.js'

/** An error as a log line holds it. */
export interface SerializedError {
  name: string
  message: string
  stack: string | undefined
  code?: unknown
  cause?: unknown
}

/** Keys the line itself uses; a context key with one of these names is written as `_<key>`. */
const LINE_KEYS = new Set(['level', 'time', 'msg', 'app', 'request'])
/** Deeper than this, a value is written as `'[Object]'`. */
const MAX_DEPTH = 8

/**
 * Turns what a caller passed as context into what a line holds: `Error`s (at any depth) become
 * `{ name, message, stack, code, cause }`, secret-looking keys (at any depth) become `'***'`,
 * cycles become `'[Circular]'`, and keys the line uses itself are prefixed with `_`. The caller's
 * objects are never changed.
 */
export function toLogContext(
  context: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (context === undefined) return out
  const seen = new WeakSet<object>()
  for (const [key, value] of Object.entries(context)) {
    out[LINE_KEYS.has(key) ? `_${key}` : key] = isSecretKey(key) ? CENSOR : clean(value, 1, seen)
  }
  return out
}

/** An error's name, message, stack and code (and its cause, serialised the same way). */
export function serializeError(error: Error, depth = 0): SerializedError {
  const out: SerializedError = { name: error.name, message: error.message, stack: error.stack }
  const code = (error as { code?: unknown }).code
  if (code !== undefined) out.code = code
  if (error.cause !== undefined)
    out.cause =
      error.cause instanceof Error && depth < 3
        ? serializeError(error.cause, depth + 1)
        : clean(error.cause, MAX_DEPTH - 1, new WeakSet())
  return out
}

function clean(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Error) return serializeError(value)
  // Values JSON writes in their own way (dates, buffers, anything with toJSON) pass as they are.
  if (ArrayBuffer.isView(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return value
  if (seen.has(value)) return '[Circular]'
  if (depth >= MAX_DEPTH) return '[Object]'
  seen.add(value)
  let out: unknown
  if (Array.isArray(value)) out = value.map((item) => clean(item, depth + 1, seen))
  else {
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value))
      copy[key] = isSecretKey(key) ? CENSOR : clean(item, depth + 1, seen)
    out = copy
  }
  // Only the path from the root counts: the same object twice side by side is not a cycle.
  seen.delete(value)
  return out
}
