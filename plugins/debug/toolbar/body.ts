// Request bodies for display: decoded (JSON, or form-urlencoded into nested structure), secrets
// masked at every size, pretty-printed only up to 2 KB, kept up to 8 KB and marked when cut.
// A body is only ever read here, never sent anywhere.
// The kernel's secret rule by path: importing `fw` would bundle the whole kernel for the browser.
import {
  decodeComponent,
  isSecretKey,
  isSecretValue,
  MASK,
  maskPairs,
  redact,
} from '../../../kernel/redact.js'
import type { BodyView } from './payload.js'

/** Bodies longer than this are shown as sent, not pretty-printed (README "The browser toolbar"). */
export const PRETTY_LIMIT = 2 * 1024
/** Bodies are kept up to this many characters. */
export const KEEP_LIMIT = 8 * 1024
const MAX_DEPTH = 8
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype'])

const decode = decodeComponent

/** `a[b][]=1&a[b][]=2&c=3` → `{a: {b: ['1', '2']}, c: '3'}` (the bracket notation PHP and qs use). */
export function decodeForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const part of text.split('&')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    const key = decode(eq < 0 ? part : part.slice(0, eq))
    const value = decode(eq < 0 ? '' : part.slice(eq + 1))
    const m = /^([^[\]]+)((?:\[[^[\]]*\])+)$/.exec(key)
    const path =
      m === null ? [key] : [m[1]!, ...Array.from(m[2]!.matchAll(/\[([^[\]]*)\]/g), (x) => x[1]!)]
    assign(out, path.slice(0, MAX_DEPTH), value)
  }
  return out
}

function assign(target: Record<string, unknown> | unknown[], path: string[], value: string): void {
  const [head, ...rest] = path as [string, ...string[]]
  if (UNSAFE.has(head)) return
  if (Array.isArray(target)) {
    if (rest.length === 0) {
      if (head === '') target.push(value)
      else (target as unknown as Record<string, unknown>)[head] = value
      return
    }
    const next = rest[0] === '' ? [] : {}
    target.push(next)
    assign(next, rest, value)
    return
  }
  if (rest.length === 0) {
    target[head] = value
    return
  }
  let next = target[head]
  if (next === null || typeof next !== 'object') target[head] = next = rest[0] === '' ? [] : {}
  assign(next as Record<string, unknown>, rest, value)
}

/** Masks secrets inside text that is neither JSON nor a form: key=value pairs, "key": "value", tokens. */
export function maskText(text: string): string {
  return text
    .replace(
      /(["']?)([A-Za-z0-9_.\-[\]]+)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^&\s,;}]+)/g,
      (all, q, key: string, sep: string, value: string) =>
        isSecretKey(key.replace(/\[|\]/g, ''))
          ? `${q}${key}${q}${sep}${value.startsWith('"') ? `"${MASK}"` : MASK}`
          : all,
    )
    .replace(/\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `Bearer ${MASK}`)
    .replace(/\b[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, MASK)
}

function formText(value: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = []
  for (const [k, v] of Object.entries(value)) {
    const key = prefix === '' ? k : `${prefix}[${k}]`
    if (v !== null && typeof v === 'object')
      out.push(...formText(v as Record<string, unknown>, key))
    else out.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`)
  }
  return out
}

function view(value: unknown, size: number, kind: BodyView['kind'], prefixCut = false): BodyView {
  const masked = redact(value)
  let text: string
  let pretty = false
  if (size <= PRETTY_LIMIT) {
    text = JSON.stringify(masked, null, 2) ?? ''
    pretty = true
  } else if (kind === 'form' && masked !== null && typeof masked === 'object') {
    text = formText(masked as Record<string, unknown>).join('&')
  } else text = JSON.stringify(masked) ?? ''
  const cut = prefixCut || text.length > KEEP_LIMIT
  return { text: text.slice(0, KEEP_LIMIT), size, cut, pretty, kind }
}

/**
 * A form body over 2 KB, shown as sent: each pair kept byte for byte unless a segment of its key
 * (`user[password]`) names a secret or its value looks like one; then only the value is masked.
 */
function asSentForm(text: string, size: number): BodyView {
  const masked = maskPairs(text, (name) =>
    name.split(/[[\]]+/).some((k) => k !== '' && isSecretKey(k)),
  )
  return asIs(masked, size, 'form')
}

/** A masked body shown as it came (not pretty-printed), cut at KEEP_LIMIT. */
function asIs(masked: string, size: number, kind: 'form' | 'text'): BodyView {
  return {
    text: masked.slice(0, KEEP_LIMIT),
    size,
    cut: masked.length > KEEP_LIMIT,
    pretty: false,
    kind,
  }
}

function fromText(text: string, type: string): BodyView {
  const size = text.length
  const t = text.trimStart()
  if (/json/i.test(type) || t.startsWith('{') || t.startsWith('[')) {
    try {
      return view(JSON.parse(text), size, 'json')
    } catch {
      // not JSON after all: shown as text, masked below
    }
  }
  if (
    /x-www-form-urlencoded/i.test(type) ||
    (!/\s/.test(t) && /^[^=&]+=[^&]*(&[^=&]+=[^&]*)*$/.test(t))
  )
    return size <= PRETTY_LIMIT ? view(decodeForm(text), size, 'form') : asSentForm(text, size)
  return asIs(maskText(text), size, 'text')
}

/**
 * A body for display, whatever the page sent: a string (JSON, form or text), `URLSearchParams`,
 * `FormData`, a `Blob` or buffer (size only), or a value already decoded (the island's own
 * request body, or what a single-page app passes to `record()`). `undefined` when there is none.
 */
export function bodyView(body: unknown, contentType = ''): BodyView | null {
  if (body === undefined || body === null || body === '') return null
  if (typeof body === 'string') return fromText(body, contentType)
  if (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams)
    return fromText(body.toString(), 'application/x-www-form-urlencoded')
  if (typeof FormData !== 'undefined' && body instanceof FormData) {
    const pairs: string[] = []
    const files: Record<string, string> = {}
    body.forEach((v, k) => {
      if (typeof v === 'string') pairs.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      else files[k] = `[file ${v.name}, ${v.size} bytes]`
    })
    const form = pairs.join('&')
    const decoded = { ...decodeForm(form), ...files }
    return view(decoded, form.length, 'form')
  }
  if (typeof Blob !== 'undefined' && body instanceof Blob)
    return {
      text: `[${body.size} bytes of ${body.type || 'binary data'}]`,
      size: body.size,
      cut: false,
      pretty: false,
      kind: 'binary',
    }
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
    return {
      text: `[${body.byteLength} bytes]`,
      size: body.byteLength,
      cut: false,
      pretty: false,
      kind: 'binary',
    }
  if (typeof body === 'object') {
    // The server's cut marker for bodies over 8 KB: `{truncated, size, head}`.
    const b = body as { truncated?: unknown; size?: unknown; head?: unknown }
    if (b.truncated === true && typeof b.head === 'string' && typeof b.size === 'number') {
      const masked = maskText(b.head)
      return {
        text: masked.slice(0, KEEP_LIMIT),
        size: b.size,
        cut: true,
        pretty: false,
        kind: 'json',
      }
    }
    let size: number
    try {
      size = JSON.stringify(body)?.length ?? 0
    } catch {
      return { text: '[unreadable body]', size: 0, cut: false, pretty: false, kind: 'binary' }
    }
    return view(body, size, 'json')
  }
  return fromText(String(body), contentType)
}

/** A value masked by key name for display; masked strings keep their length visible. */
export function maskedValue(key: string, value: string): string {
  return isSecretKey(key) || isSecretValue(value) ? `${MASK} (${value.length} chars)` : value
}
