import type { Readable } from 'node:stream'

/**
 * What a reply carries. The body stays a value (not bytes) until the server writes it, so that
 * `render` taps can still change it: add `_debug` to a JSON object, turn JSON into XML, inject the
 * toolbar into HTML.
 */
export type ReplyBody =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'html'; readonly value: string }
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'bytes'; readonly value: Uint8Array }
  | { readonly kind: 'stream'; readonly value: Readable }
  | { readonly kind: 'view'; readonly template: string; readonly data: Record<string, unknown> }
  | { readonly kind: 'empty' }

/** Header values as the server writes them; names are always lower case. */
export type HeaderValue = string | string[]

/**
 * A response as a value: status, headers (lower-case names) and a body. Handlers return one (or a
 * plain value the kernel wraps), `render` taps transform it, `annotate` taps add headers to it, and
 * only then does the server write it.
 *
 * @example
 * return json({ id: 1 }, 201).header('location', '/things/1')
 */
export class Reply {
  status: number
  readonly headers: Record<string, HeaderValue>
  body: ReplyBody

  constructor(status: number, body: ReplyBody, headers: Record<string, HeaderValue> = {}) {
    this.status = status
    this.body = body
    this.headers = headers
  }

  /** Sets a header (the name is lower-cased); returns the reply for chaining. */
  header(name: string, value: HeaderValue): this {
    this.headers[name.toLowerCase()] = value
    return this
  }

  /** Appends to a header such as `vary` or `set-cookie` without losing what is there. */
  appendHeader(name: string, value: string): this {
    const key = name.toLowerCase()
    const current = this.headers[key]
    if (current === undefined) this.headers[key] = value
    else if (typeof current === 'string')
      this.headers[key] = key === 'set-cookie' ? [current, value] : `${current}, ${value}`
    else this.headers[key] = [...current, value]
    return this
  }

  /** Adds `token` to `Vary` unless it is listed already (any casing). */
  vary(token: string): this {
    const current = this.headers.vary
    const listed = current === undefined ? [] : String(current).split(',')
    if (!listed.some((t) => t.trim().toLowerCase() === token.toLowerCase()))
      this.appendHeader('vary', token)
    return this
  }

  /** Reads a header by any casing. */
  getHeader(name: string): HeaderValue | undefined {
    return this.headers[name.toLowerCase()]
  }

  /** True when the body is a JSON object (not an array, not a scalar). */
  isJsonObject(): boolean {
    const b = this.body
    return (
      b.kind === 'json' &&
      b.value !== null &&
      typeof b.value === 'object' &&
      !Array.isArray(b.value)
    )
  }
}

/** A JSON reply; the value is serialised when the server writes the reply. */
export function json(value: unknown, status = 200): Reply {
  return new Reply(status, { kind: 'json', value })
}

/** An HTML reply (`text/html; charset=utf-8`). */
export function html(value: string, status = 200): Reply {
  return new Reply(status, { kind: 'html', value })
}

/** A plain-text reply (`text/plain; charset=utf-8`). */
export function text(value: string, status = 200): Reply {
  return new Reply(status, { kind: 'text', value })
}

/** A reply with no body: 204 by default. */
export function empty(status = 204): Reply {
  return new Reply(status, { kind: 'empty' })
}

/** A redirect: 302 by default, 301 for a permanent one. */
export function redirect(location: string, status = 302): Reply {
  return new Reply(status, { kind: 'empty' }, { location })
}

/** A bytes or stream reply with an explicit content type. */
export function send(value: Uint8Array | Readable, contentType: string, status = 200): Reply {
  const body: ReplyBody =
    value instanceof Uint8Array ? { kind: 'bytes', value } : { kind: 'stream', value }
  return new Reply(status, body, { 'content-type': contentType })
}

/**
 * A template to render. A view engine taps `render` and turns it into HTML; with none registered
 * the kernel answers 500 (`FW_ERR_VIEW_NO_ENGINE`).
 */
export function view(template: string, data: Record<string, unknown> = {}, status = 200): Reply {
  return new Reply(status, { kind: 'view', template, data })
}

/**
 * Wraps what a handler returned: a `Reply` passes through; `undefined`/`null` is 204; a string is
 * HTML when it starts with `<`, text otherwise; a `Uint8Array` is bytes; anything else is JSON.
 */
export function toReply(value: unknown): Reply {
  if (value instanceof Reply) return value
  if (value === undefined || value === null) return empty()
  if (typeof value === 'string')
    return value.trimStart().startsWith('<') ? html(value) : text(value)
  if (value instanceof Uint8Array) return send(value, 'application/octet-stream')
  return json(value)
}
