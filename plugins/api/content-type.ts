import type * as Fxp from 'fast-xml-parser'
import { requireOptional, type Middleware, type Reply } from 'fw'

export const JSON_TYPE = 'application/json; charset=utf-8'
export const XML_TYPE = 'application/xml; charset=utf-8'

/** The quality `Accept` gives a media type: the most specific matching range wins; 0 when none. */
function quality(
  ranges: readonly { type: string; sub: string; q: number }[],
  type: string,
  sub: string,
): number {
  let best = -1
  let q = 0
  for (const r of ranges) {
    const specificity =
      r.type === type && r.sub === sub
        ? 2
        : r.type === type && r.sub === '*'
          ? 1
          : r.type === '*'
            ? 0
            : -1
    if (specificity > best) {
      best = specificity
      q = r.q
    }
  }
  return q
}

/**
 * `xml` when `Accept` prefers `application/xml` over `application/json` by q-values (a tie, or no
 * `Accept`, is JSON).
 *
 * @example
 * negotiate('application/xml') // 'xml'
 * negotiate('application/json;q=0.5, application/xml') // 'xml'
 * negotiate('*\/*') // 'json'
 */
export function negotiate(accept: string | undefined): 'json' | 'xml' {
  // Without q-values every named range weighs 1: XML can only win when it is named.
  if (accept === undefined || (!accept.includes('xml') && !accept.includes(';'))) return 'json'
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.split(';')
    const [type = '', sub = ''] = range.trim().toLowerCase().split('/')
    let q = 1
    for (const p of params) {
      const [k, v] = p.split('=')
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v?.trim())
        q = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0
      }
    }
    return { type, sub, q }
  })
  const xml = quality(ranges, 'application', 'xml')
  return xml > 0 && xml > quality(ranges, 'application', 'json') ? 'xml' : 'json'
}

const NAME = /^[A-Za-z_][\w.-]*$/

/** A JSON key as an XML element name: invalid characters become `_`, a bad start gets `_`. */
function elementName(key: string): string {
  if (NAME.test(key) && !/^xml/i.test(key)) return key
  const cleaned = key.replace(/[^\w.-]/g, '_')
  return /^[A-Za-z_]/.test(cleaned) && !/^xml/i.test(cleaned) ? cleaned : `_${cleaned}`
}

/**
 * A JSON value shaped for the XML builder: arrays become `{item: [...]}` (so one element and an
 * empty list survive a round trip), keys become valid element names, null becomes an empty element.
 */
function shape(value: unknown): unknown {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.length === 0 ? '' : { item: value.map(shape) }
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out[elementName(k)] = shape(v)
    }
    return out
  }
  return value
}

let builder: Fxp.XMLBuilder | undefined

/**
 * fast-xml-parser's builder, made on the first XML answer: loading the package (≈25 ms) is not
 * the cost of every `fw` command that boots the app.
 */
function xmlBuilder(): Fxp.XMLBuilder {
  if (builder === undefined) {
    const { XMLBuilder } = requireOptional<typeof Fxp>(
      'fast-xml-parser',
      'an XML reply of the api plugin',
    )
    builder = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: false })
  }
  return builder
}

/**
 * A JSON value as an XML document: root `<response>`; arrays as `<item>` children; `null` and
 * empty arrays as empty elements. Text is escaped by fast-xml-parser's `XMLBuilder`.
 */
export function toXml(value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${xmlBuilder().build({ response: shape(value) }) as string}`
}

/**
 * Marks the request with its negotiated format, and as answering JSON by default: the kernel's
 * own errors after it (a missing bound model's 404, a 500) are JSON (XML for an XML client) unless
 * the client ranks `text/html` first. Never answers early.
 */
export const contentType: Middleware = function contentType(ctx, next) {
  const state = (ctx.state.api ??= {})
  state.format = negotiate(ctx.headers.accept)
  ctx.jsonByDefault = true
  return next()
}

/** The kernel's own error codes, for its HTML error pages turned into XML. */
const KERNEL_ERRORS: Record<number, string> = {
  404: 'not_found',
  405: 'method_not_allowed',
  500: 'unavailable',
  503: 'maintenance',
}

/** Applies the negotiated format to a JSON reply (also an error's): XML or JSON with charset. */
export function renderFormat(reply: Reply, format: 'json' | 'xml'): Reply {
  const body = reply.body
  if (format === 'xml' && body.kind === 'html' && reply.status >= 400) {
    // The kernel's terminal errors (a binding's 404, a 500) answer HTML to a client that does not
    // ask for JSON; an XML client of the API gets their envelope instead.
    reply.body = { kind: 'json', value: { error: KERNEL_ERRORS[reply.status] ?? 'error' } }
    delete reply.headers['content-type']
    return renderFormat(reply, format)
  }
  if (body.kind !== 'json') return reply
  if (format === 'xml') {
    reply.body = { kind: 'text', value: toXml(body.value) }
    reply.header('content-type', XML_TYPE)
  } else if (reply.headers['content-type'] === undefined) {
    reply.headers['content-type'] = JSON_TYPE
  }
  return reply.vary('Accept')
}
