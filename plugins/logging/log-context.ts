import { createRedaction, type Redaction } from 'fw'

/** An error as a log line holds it. */
export interface SerializedError {
  name: string
  message: string
  stack?: string | undefined
  code?: unknown
  cause?: unknown
}

/** Keys the line itself uses; a context key with one of these names is written as `_<key>`. */
const LINE_KEYS = new Set(['level', 'time', 'msg', 'app', 'request'])

const builtIn = createRedaction()

/**
 * Turns what a caller passed as context into what a line holds, through the kernel's redaction
 * (docs/redaction.md): `Error`s (at any depth) become `{ name, message, stack, code, cause }`,
 * secret-named keys and credential-looking values (at any depth) become `'***'`, cycles become
 * `'[Circular]'`, and keys the line uses itself are prefixed with `_`. The caller's objects are
 * never changed.
 */
export function toLogContext(
  context: Record<string, unknown> | undefined,
  redaction: Redaction = builtIn,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (context === undefined) return out
  const masked = redaction.redact(context, { stack: true }) as Record<string, unknown>
  for (const [key, value] of Object.entries(masked))
    out[LINE_KEYS.has(key) ? `_${key}` : key] = value
  return out
}

/** An error's name, message, stack and code (and its cause, serialised the same way), masked. */
export function serializeError(error: Error, redaction: Redaction = builtIn): SerializedError {
  return redaction.redact(error, { stack: true }) as SerializedError
}
