import { HttpError, json, type Kernel } from 'fw'

/**
 * RealWorld's error body, `{"errors": {"body": ["…"]}}`, with a status: 401 (no or a bad token),
 * 403 (someone else's article or comment), 404, 422 (a body that does not match, a name taken).
 */
export function failure(status: number, ...messages: string[]): HttpError {
  return new HttpError(status, { errors: { body: messages } })
}

/** Every message of fw's 422 body (`errors`: the messages by field), in field order. */
function messagesOf(body: Record<string, unknown>): string[] {
  const errors = body.errors
  if (typeof errors !== 'object' || errors === null) return []
  return Object.values(errors).flatMap((list) => (Array.isArray(list) ? list.map(String) : []))
}

/**
 * Answers every error fw raises under `/api` in RealWorld's shape: the 422 of a route's body schema
 * (`FW_ERR_HTTP_BODY_INVALID`: its messages), a malformed or oversized body (its message, its status), and
 * leaves the app's own `failure()`s as they are. Anything else (a 500) is left to the kernel.
 */
export function tapErrorShape(kernel: Kernel): void {
  kernel.hooks.error.tap('conduit.errors', (error, ctx) => {
    if (!(error instanceof HttpError) || !ctx.path.startsWith('/api/')) return undefined
    const body = error.body
    if (isConduitBody(body)) return undefined
    const messages = messagesOf(body)
    if (messages.length === 0)
      messages.push(typeof body.message === 'string' ? body.message : error.message)
    const reply = json({ errors: { body: messages } }, error.status)
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
    return reply
  })
}

function isConduitBody(body: Record<string, unknown>): boolean {
  const errors = body.errors as { body?: unknown } | undefined
  return Array.isArray(errors?.body)
}
