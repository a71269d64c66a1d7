// One way to say what was thrown. Imports nothing, so the CLI and the browser toolbar use it too.

/**
 * An error's message (its name when the message is empty), or what was thrown, as text.
 *
 * @example
 * catch (error) { log.warn('the cache is down', { reason: messageOf(error) }) }
 */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}
