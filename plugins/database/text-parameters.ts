// Parameters sent to PGlite as node-pg sends them to PostgreSQL: as text.

/** A value as node-pg sends it: text, which the server converts to the parameter's type. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value instanceof Date) return value.toISOString()
  // bytea's hex input format, the text of every byte.
  if (value instanceof Uint8Array)
    return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`
  if (typeof value === 'object' && value !== null) return JSON.stringify(value)
  return String(value)
}

/**
 * PGlite serialises parameters itself, by the type the server inferred, and refuses some on the
 * client (`'false'` for a boolean, `true` for text) where PostgreSQL would convert or reject the
 * value itself. Sending every parameter as text, as node-pg does, makes both behave the same: the
 * value reaches the database and any failure is the database's, with its SQLSTATE.
 */
export const TEXT_SERIALIZERS: Record<number, (value: unknown) => string> = new Proxy(
  {},
  { get: (_target, key) => (typeof key === 'string' && /^\d+$/.test(key) ? asText : undefined) },
)
