import type { IncomingHttpHeaders } from 'node:http'
import qs from 'qs'
import { HttpError } from '../errors.js'

/** A request body as the server layer has it: bytes in memory, a stream, or nothing. */
export type BodySource = Uint8Array | string | AsyncIterable<Uint8Array> | undefined

const FORM_OPTIONS = { depth: 5, arrayLimit: 100, parameterLimit: 1000 } as const

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    { error: 'payload_too_large', message: `The request body exceeds ${limit} bytes.` },
    { code: 'FW_ERR_HTTP_BODY_TOO_LARGE' },
  )
}

/** Collects the body's bytes, refusing (413) as soon as they pass `limit`. */
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
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of source) {
    size += chunk.length
    if (size > limit) throw tooLarge(limit)
    chunks.push(Buffer.from(chunk))
  }
  return Buffer.concat(chunks, size)
}

function malformed(what: string): HttpError {
  return new HttpError(
    400,
    { error: 'malformed_body', message: `The request body is not valid ${what}.` },
    { code: 'FW_ERR_HTTP_BODY_MALFORMED' },
  )
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
      return qs.parse(textBody, FORM_OPTIONS) as unknown
    } catch {
      throw malformed('form-urlencoded data')
    }
  }
  if (type.startsWith('multipart/')) {
    throw new HttpError(
      415,
      {
        error: 'unsupported_media_type',
        message: 'Multipart bodies are not parsed by the kernel.',
      },
      { code: 'FW_ERR_HTTP_UNSUPPORTED_MEDIA' },
    )
  }
  if (type.startsWith('text/')) return bytes.toString('utf8')
  return bytes
}
