import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib'
import type { HeaderValue } from '../reply.js'
import type { WireReply } from './serialize.js'

/** A content coding fw compresses with, best first when a client accepts both equally. */
export type Encoding = 'br' | 'gzip'

/** `http.compression`: whether replies are compressed, and from what size. */
export interface CompressionConfig {
  /** Compress text replies and static files (default true; false where a proxy does it). */
  readonly enabled: boolean
  /** The smallest body compressed, in bytes (default 1024): below it the headers cost more. */
  readonly threshold: number
}

/**
 * Bodies up to this size are compressed on the event loop, larger ones on libuv's thread pool.
 * Measured in bench/compression.ts ("sync/async"): at 10 KB a synchronous brotli (quality 4) or
 * gzip call costs less CPU than the asynchronous one's hand-over to a thread and back, and blocks
 * the loop for about as long as handling a request does; past 64 KB the pause grows with the
 * body, so it moves off the loop.
 */
const SYNC_MAX = 64 * 1024

/** Brotli's quality for replies compressed as they are sent: most of its gain at a gzip's cost. */
const DYNAMIC_BROTLI_QUALITY = 4

/** zlib options for replies compressed as they are sent. */
export function dynamicOptions(encoding: Encoding, size: number): object {
  return encoding === 'br'
    ? {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: size,
        },
      }
    : { level: 6 }
}

/** Compresses `body` off the event loop (libuv's thread pool). */
export function compressAsync(
  body: Uint8Array,
  encoding: Encoding,
  options: object,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, out: Buffer): void => (error ? reject(error) : resolve(out))
    if (encoding === 'br') brotliCompress(body, options, done)
    else gzip(body, options, done)
  })
}

/**
 * The coding to answer with for an `Accept-Encoding` value (RFC 9110 §12.5.3): the one with the
 * highest q-value above 0, brotli on a tie; a coding not named takes `*`'s q-value; none (identity)
 * when neither is acceptable. `identity` itself needs no coding.
 */
export function negotiate(header: string): Encoding | undefined {
  let br = -1
  let gz = -1
  let any = -1
  for (const part of header.split(',')) {
    const semi = part.indexOf(';')
    const name = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase()
    let q = 1
    if (semi !== -1) {
      const m = /(?:^|;)\s*q\s*=\s*([0-9.]+)/i.exec(part.slice(semi))
      q = m === null ? 1 : Number(m[1])
      if (!Number.isFinite(q)) q = 0
    }
    if (name === 'br') br = Math.max(br, q)
    else if (name === 'gzip' || name === 'x-gzip') gz = Math.max(gz, q)
    else if (name === '*') any = Math.max(any, q)
  }
  if (br < 0) br = any
  if (gz < 0) gz = any
  if (br <= 0 && gz <= 0) return undefined
  return br >= gz ? 'br' : 'gzip'
}

/** True for a media type worth compressing: text, JSON, JavaScript, XML and SVG. */
export function compressibleType(type: string): boolean {
  const semi = type.indexOf(';')
  const media = (semi === -1 ? type : type.slice(0, semi)).trim().toLowerCase()
  if (media === 'text/event-stream') return false
  return (
    media.startsWith('text/') ||
    media === 'application/json' ||
    media === 'application/javascript' ||
    media === 'application/xml' ||
    media.endsWith('+json') ||
    media.endsWith('+xml')
  )
}

/** A small memo of a string function (request header values and content types repeat). */
function memo<T>(fn: (key: string) => T, max = 64): (key: string) => T {
  const seen = new Map<string, T>()
  return (key) => {
    let value = seen.get(key)
    if (value === undefined && !seen.has(key)) {
      if (seen.size >= max) seen.clear()
      value = fn(key)
      seen.set(key, value)
    }
    return value as T
  }
}

/** The request as compression reads it: its `Accept-Encoding`, asked only for a candidate reply. */
export interface EncodingQuery {
  headers(): { 'accept-encoding'?: string | undefined }
}

/** Compressed bodies of one reply body, by coding. */
type Compressed = { br?: Buffer; gzip?: Buffer }

/** A text body kept with its compressed forms. */
interface TextEntry {
  readonly text: string
  readonly compressed: Compressed
}

/** The most bytes the cache of compressed reply bodies holds (bodies and compressed forms). */
const CACHE_BYTES = 16 * 1024 * 1024
/** A body larger than this is compressed for its request only, never cached. */
const CACHE_MAX_BODY = 256 * 1024
/**
 * Bodies of one length the cache keeps, newest first. A lookup compares the body with each of them
 * (`===`, which stops at the first differing character), so that bodies that differ on every
 * request but keep their length cost a few comparisons, not a growing scan.
 */
const PER_LENGTH = 4

/** Takes a reply as it goes to the client (or the failure to compress it); true when written whole. */
export type Send = (wire: WireReply | undefined, error?: unknown) => boolean

/**
 * Compresses replies on their way to the socket. Per reply it does the least it can: a body under
 * the threshold or a type that does not compress costs a length check and a look at its headers,
 * and the `Accept-Encoding` header is read only for a reply that could be compressed.
 *
 * The same body is compressed once: bytes by identity (a route answering the same buffer, like
 * the toolbar's script; such a buffer must not be changed in place), text by content for replies any cache could share (no `Set-Cookie`, no
 * `Cache-Control: private` or `no-store`), in a cache bounded by {@link CACHE_BYTES}. A private
 * reply is compressed for its request only, so that how fast it comes back tells nothing of what
 * other users were sent.
 */
export class Compression {
  readonly #threshold: number
  readonly #negotiate = memo(negotiate)
  readonly #compressible = memo(compressibleType)
  readonly #bytes = new WeakMap<Uint8Array, Compressed>()
  /**
   * Text bodies by length, oldest length first. A body rendered anew on each request is a string
   * V8 has never hashed: a `Map` keyed by the text would hash all of it on every lookup, three to
   * seven times the cost of comparing it with the kept bodies of its length
   * (bench/compression.ts, JSON and HTML compressed against identity).
   */
  readonly #texts = new Map<number, TextEntry[]>()
  #textBytes = 0

  constructor(config: CompressionConfig) {
    this.#threshold = config.threshold
  }

  /** The coding for an `Accept-Encoding` value (memoised), or undefined for identity. */
  encodingFor(header: string | undefined): Encoding | undefined {
    return header === undefined ? undefined : this.#negotiate(header)
  }

  /** True when a reply of this content type is compressed (memoised). */
  compressible(type: string): boolean {
    return this.#compressible(type)
  }

  /** The smallest body compressed, in bytes. */
  get threshold(): number {
    return this.#threshold
  }

  /**
   * The wire reply as it goes to this client: compressed (`Content-Encoding`, its new length) when
   * it is text over the threshold, not encoded already, not `no-transform`, and the client accepts
   * brotli or gzip; with `Vary: Accept-Encoding` whenever its coding depends on the client. HEAD
   * gets the headers of the GET, without a length (the compressed one is not computed for it).
   * A promise when the body is compressed off the event loop.
   */
  apply(wire: WireReply, request: EncodingQuery, send: Send): boolean {
    const payload = wire.payload
    const status = wire.status
    if (status < 200 || status === 204 || status === 206 || status === 304) return send(wire)
    if (payload !== undefined && typeof payload !== 'string' && !(payload instanceof Uint8Array))
      return send(wire) // a stream: sent as it comes
    const headers = wire.headers
    let length = -1
    let type: HeaderValue | undefined
    let vary = -1
    let shared = true
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string
      const value = headers[i + 1]
      if (name === 'content-length') length = Number(value)
      else if (name === 'content-type') type = value
      else if (name === 'vary') vary = i + 1
      else if (name === 'content-encoding' || name === 'content-range') return send(wire)
      else if (name === 'set-cookie') shared = false
      else if (name === 'cache-control') {
        const directives = String(value).toLowerCase()
        if (directives.includes('no-transform')) return send(wire)
        if (directives.includes('private') || directives.includes('no-store')) shared = false
      }
    }
    if (length < this.#threshold || typeof type !== 'string' || !this.#compressible(type))
      return send(wire)
    const out = headers.slice()
    if (vary === -1) out.push('vary', 'Accept-Encoding')
    else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(String(headers[vary])))
      out[vary] = `${String(headers[vary])}, Accept-Encoding`
    const encoding = this.encodingFor(request.headers()['accept-encoding'])
    if (encoding === undefined) return send({ status, headers: out, payload })
    const at = out.indexOf('content-length')
    out.splice(at, 2, 'content-encoding', encoding)
    if (payload === undefined) return send({ status, headers: out, payload }) // HEAD
    const done = (body: Buffer): WireReply => {
      out.push('content-length', `${body.byteLength}`)
      return { status, headers: out, payload: body }
    }
    const cached = this.#cached(payload, shared)
    const hit = cached?.[encoding]
    if (hit !== undefined) return send(done(hit))
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload
    const options = dynamicOptions(encoding, length)
    const keep = (compressed: Buffer): WireReply => {
      if (cached !== undefined) this.#keep(payload, cached, encoding, compressed)
      return done(compressed)
    }
    if (length <= SYNC_MAX)
      return send(
        keep(encoding === 'br' ? brotliCompressSync(body, options) : gzipSync(body, options)),
      )
    compressAsync(body, encoding, options).then(
      (compressed) => send(keep(compressed)),
      (error: unknown) => send(undefined, error),
    )
    return false
  }

  /** The cache entry of a body (made when absent), or undefined when the body is not cached. */
  #cached(payload: string | Uint8Array, shared: boolean): Compressed | undefined {
    if (payload instanceof Uint8Array) {
      let entry = this.#bytes.get(payload)
      if (entry === undefined) this.#bytes.set(payload, (entry = {}))
      return entry
    }
    if (!shared || payload.length > CACHE_MAX_BODY) return undefined
    const kept = this.#texts.get(payload.length)
    if (kept !== undefined)
      for (const entry of kept) if (entry.text === payload) return entry.compressed
    return {}
  }

  /** Keeps a compressed text body, dropping the oldest entries past {@link CACHE_BYTES}. */
  #keep(payload: string | Uint8Array, entry: Compressed, encoding: Encoding, body: Buffer): void {
    entry[encoding] = body
    if (typeof payload !== 'string') return
    this.#textBytes += body.byteLength
    let kept = this.#texts.get(payload.length)
    if (kept === undefined) this.#texts.set(payload.length, (kept = []))
    if (!kept.some((old) => old.compressed === entry)) {
      kept.unshift({ text: payload, compressed: entry })
      this.#textBytes += payload.length
      if (kept.length > PER_LENGTH) this.#textBytes -= sizeOf(kept.pop() as TextEntry)
    }
    for (const [length, bucket] of this.#texts) {
      if (this.#textBytes <= CACHE_BYTES) break
      this.#texts.delete(length)
      for (const old of bucket) this.#textBytes -= sizeOf(old)
    }
  }
}

/** The bytes a kept text body holds: its text and its compressed forms. */
function sizeOf(entry: TextEntry): number {
  const { br, gzip } = entry.compressed
  return entry.text.length + (br?.byteLength ?? 0) + (gzip?.byteLength ?? 0)
}
