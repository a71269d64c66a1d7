import { STATUS_CODES } from 'node:http'
import { HttpError, type Kernel } from 'fw'

/**
 * RealWorld's error body, `{"errors": {"body": ["…"]}}`, with a status: 401 (no or a bad token),
 * 403 (someone else's article or comment), 404, 422 (a body that does not match, a name taken).
 */
export function failure(status: number, ...messages: string[]): HttpError {
  return new HttpError(status, { errors: { body: messages } })
}

/** True for RealWorld's error body and nothing more: `{"errors": {"body": [strings]}}`. */
function isConduitBody(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.keys(value).length !== 1) return false
  const errors = (value as { errors?: unknown }).errors
  return (
    typeof errors === 'object' &&
    errors !== null &&
    Object.keys(errors).length === 1 &&
    Array.isArray((errors as { body?: unknown }).body)
  )
}

/**
 * The messages of one of fw's error bodies: every field's messages of a 422 (`errors`, by field, in
 * field order), else its `message`, else the status's reason (a 405's `Method Not Allowed`).
 */
function messagesOf(value: unknown, status: number): string[] {
  const body = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  const errors = body.errors
  const fields =
    typeof errors === 'object' && errors !== null
      ? Object.values(errors).flatMap((list) => (Array.isArray(list) ? list.map(String) : []))
      : []
  if (fields.length > 0) return fields
  if (typeof body.message === 'string') return [body.message]
  return [STATUS_CODES[status] ?? `HTTP ${status}`]
}

/**
 * Answers every client error under `/api` in RealWorld's shape, whoever raised it: the kernel's 422
 * for a route's body schema (its messages), a malformed or oversized body, a path no route has
 * (404) or a method it does not take (405, its `Allow` kept), the database plugin's 400 for a
 * character no text can hold; the app's own `failure()`s are that shape already. A `render` tap
 * sees every reply, thrown or not; headers (`Retry-After`, `Allow`) stay as they are. A 5xx is
 * left to the kernel (`test/examples/conduit.test.ts`, "every client error … RealWorld's shape").
 */
export function tapErrorShape(kernel: Kernel): void {
  kernel.hooks.render.tap('conduit.errors', (reply, ctx) => {
    const { status, body } = reply
    if (status < 400 || status >= 500 || body.kind !== 'json' || !ctx.path.startsWith('/api/'))
      return reply
    if (!isConduitBody(body.value))
      reply.body = { kind: 'json', value: { errors: { body: messagesOf(body.value, status) } } }
    return reply
  })
}
