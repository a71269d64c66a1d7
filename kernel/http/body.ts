import type { IncomingHttpHeaders } from 'node:http'
import { requestErrors } from '../error-codes.js'
import { HttpError } from '../errors.js'
import { parseQs } from '../qs.js'

/** A request body as the server layer has it: bytes in memory, a stream, or nothing. */
export type BodySource = Uint8Array | string | AsyncIterable<Uint8Array> | undefined

const FORM_OPTIONS = { depth: 5, arrayLimit: 100, parameterLimit: 1000 } as const

function tooLarge(limit: number): HttpError {
  return requestErrors.httpError('FW_ERR_HTTP_BODY_TOO_LARGE', { limit })
}

/**
 * A body the client stopped sending: the connection closed or broke (an aborted upload, a malformed
 * chunk) before the body was whole. Usually nobody is left to read the answer; it is still a 400,
 * never a 500, and never an exception that outlives the request.
 */
function incomplete(cause?: unknown): HttpError {
  return requestErrors.httpError('FW_ERR_HTTP_BODY_INCOMPLETE', { cause })
}

/** A request stream as Node's `IncomingMessage` is one: events, and a way to stop reading. */
interface ReadableBody extends AsyncIterable<Uint8Array> {
  on(event: string, listener: (...args: never[]) => void): unknown
  off(event: string, listener: (...args: never[]) => void): unknown
  pause(): unknown
  readonly destroyed?: boolean
  readonly readableEnded?: boolean
}

function isReadable(source: AsyncIterable<Uint8Array>): source is ReadableBody {
  const s = source as Partial<ReadableBody>
  return typeof s.on === 'function' && typeof s.off === 'function' && typeof s.pause === 'function'
}

/**
 * Collects the body's bytes, refusing (413) as soon as they pass `limit`.
 *
 * A request stream is read through its events, not `for await`: leaving a `for await` early (the
 * limit passed) destroys the stream and with it the socket, so the 413 could not be written and
 * whatever still held the request found its socket gone. Here reading just stops; the server
 * answers with `Connection: close` because the body was left unread (see `server.ts`).
 */
export async function collect(
  source: BodySource,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<Buffer> {
  if (source === undefined) return Buffer.alloc(0)
  if (typeof source === 'string' || source instanceof Uint8Array) {
    const buf = Buffer.from(source)
    if (buf.length > limit) throw tooLarge(limit)
    return buf
  }
  const declared = Number(headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  if (isReadable(source)) return collectStream(source, limit)
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of source) {
      size += chunk.length
      if (size > limit) throw tooLarge(limit)
      chunks.push(Buffer.from(chunk))
    }
  } catch (error) {
    throw error instanceof HttpError ? error : incomplete(error)
  }
  return Buffer.concat(chunks, size)
}

function collectStream(stream: ReadableBody, limit: number): Promise<Buffer> {
  // A stream that closed or was consumed before anyone asked for the body never emits again.
  if (stream.destroyed === true || stream.readableEnded === true)
    return Promise.reject(incomplete())
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = (error: HttpError | undefined): void => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      stream.off('close', onClose)
      if (error === undefined) resolve(Buffer.concat(chunks, size))
      else reject(error)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        stream.pause()
        settle(tooLarge(limit))
      } else chunks.push(chunk)
    }
    const onEnd = (): void => settle(undefined)
    const onError = (error: Error): void => settle(incomplete(error))
    // 'close' without 'end': the client went away mid-body ('error' is emitted only to listeners
    // that were there when Node destroyed the request, so both are watched).
    const onClose = (): void => settle(incomplete())
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
    stream.on('close', onClose)
  })
}

function malformed(what: string): HttpError {
  return requestErrors.httpError('FW_ERR_HTTP_BODY_MALFORMED', { what })
}

/**
 * Reads and parses a request body by its content type: JSON (`application/json`, `*+json`),
 * form-urlencoded with nested keys (`a[b][0]=x`), `text/*` as a string, anything else as bytes.
 * No body parses to `{}`. Multipart is refused with 415 until a plugin handles it.
 */
export async function readBody(
  source: BodySource,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<unknown> {
  const bytes = await collect(source, headers, limit)
  const type = (headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()
  if (bytes.length === 0) return {}
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown
    } catch {
      throw malformed('JSON')
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    const textBody = bytes.toString('utf8')
    try {
      // decodeURIComponent throws inside qs only on hostile input; qs itself swallows it, but a
      // lone surrogate or similar must never turn into a 500.
      return parseQs(textBody, FORM_OPTIONS)
    } catch {
      throw malformed('form-urlencoded data')
    }
  }
  if (type.startsWith('multipart/')) {
    throw requestErrors.httpError('FW_ERR_HTTP_UNSUPPORTED_MEDIA')
  }
  if (type.startsWith('text/')) return bytes.toString('utf8')
  return bytes
}
