// Wrapping `fetch` and `XMLHttpRequest` so every request the page makes becomes a row. The
// originals are always called with the page's own arguments and their results returned
// unchanged (the very same promise, the same XHR object); bodies are read only through
// `clone()`; every line of our own work sits in a try/catch, so the toolbar can never break the
// page's traffic.
import type { Payload, Summary } from './payload.js'
import { messageOf } from '../../../kernel/message-of.js'

/** What a finished request reports to the bar. */
export interface Captured {
  method: string
  path: string
  status: number | null
  start: number
  end: number
  payload: Payload | null
  summary: Summary | null
  id: string | null
  body: unknown
  contentType: string
  failure?: string
}

export type Sink = (request: Captured) => void

/** The fetch the toolbar itself uses (dev panel, OpenAPI document): never recorded. */
export let unwrappedFetch: typeof fetch = (...args) => fetch(...args)

const JSON_TYPE = /[/+]json\b/i

/**
 * A same-origin URL as a path; other origins stay absolute. Relative URLs resolve as fetch and
 * XHR resolve them: against the document's base URL (a `<base href>`), not the location.
 */
export function displayPath(url: string): string {
  try {
    const u = new URL(url, document.baseURI)
    return u.origin === location.origin ? u.pathname + u.search : u.href
  } catch {
    return String(url)
  }
}

function summaryOf(header: string | null): Summary | null {
  if (header === null || header === '') return null
  try {
    const s = JSON.parse(header) as unknown
    return s !== null && typeof s === 'object' ? (s as Summary) : null
  } catch {
    return null
  }
}

function payloadOf(text: string): Payload | null {
  if (text === '' || text.length > 20 * 1024 * 1024) return null
  try {
    const body = JSON.parse(text) as unknown
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return null
    const p = (body as { _debug?: unknown })._debug
    return p !== null && typeof p === 'object' ? (p as Payload) : null
  } catch {
    return null
  }
}

function headerOf(init: RequestInit | undefined, request: Request | null, name: string): string {
  try {
    if (init?.headers !== undefined) {
      const v = new Headers(init.headers).get(name)
      if (v !== null) return v
    }
    return request?.headers.get(name) ?? ''
  } catch {
    return ''
  }
}

/** Wraps `window.fetch`. */
export function wrapFetch(sink: Sink): void {
  const original = window.fetch
  if (typeof original !== 'function') return
  unwrappedFetch = original.bind(window)
  const wrapped = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
    // eslint-disable-next-line prefer-rest-params -- the page's exact arguments, however many
    const args = arguments as unknown as Parameters<typeof fetch>
    let start = 0
    let method = 'GET'
    let url = ''
    let body: unknown = undefined
    let contentType = ''
    let pendingBody: Promise<string> | null = null
    try {
      start = performance.now()
      const request = typeof Request !== 'undefined' && input instanceof Request ? input : null
      url = request !== null ? request.url : String(input)
      method = (init?.method ?? request?.method ?? 'GET').toUpperCase()
      contentType = headerOf(init, request, 'content-type')
      if (init?.body !== undefined && init.body !== null) body = init.body
      else if (request !== null && request.body !== null && !request.bodyUsed)
        pendingBody = request.clone().text()
    } catch {
      // the row will just miss what could not be read
    }
    const result = original.apply(this === undefined ? window : this, args)
    try {
      result.then(
        (response) => {
          try {
            finish(response)
          } catch {
            // a response we cannot read still leaves the page's promise alone
          }
        },
        (error: unknown) => {
          try {
            report(null, null, null, null, messageOf(error))
          } catch {
            // nothing to do
          }
        },
      )
    } catch {
      // `result` was not a promise (a page's own fetch replacement): nothing to record
    }
    return result

    function report(
      status: number | null,
      payload: Payload | null,
      summary: Summary | null,
      id: string | null,
      failure?: string,
    ) {
      const end = performance.now()
      const done = (b: unknown) =>
        sink({
          method,
          path: displayPath(url),
          status,
          start,
          end,
          payload,
          summary,
          id,
          body: b,
          contentType,
          ...(failure === undefined ? {} : { failure }),
        })
      if (pendingBody === null) done(body)
      else pendingBody.then(done, () => done(undefined))
    }

    function finish(response: Response) {
      const summary = summaryOf(response.headers.get('x-fw-debug'))
      const id = response.headers.get('x-request-id') ?? summary?.id ?? null
      const type = response.headers.get('content-type') ?? ''
      if (JSON_TYPE.test(type) && response.body !== null && !response.bodyUsed) {
        response
          .clone()
          .text()
          .then(
            (text) => report(response.status, payloadOf(text), summary, id),
            () => report(response.status, null, summary, id),
          )
      } else report(response.status, null, summary, id)
    }
  }
  window.fetch = wrapped as typeof fetch
}

// XMLHttpRequest's ready states, as numbers: a page may replace the XMLHttpRequest global.
const OPENED = 1
const DONE = 4

interface XhrMeta {
  method: string
  url: string
  start: number
  body: unknown
  contentType: string
  /** `send()` went through for this `open()`. */
  sent: boolean
  /** The row was reported (each request exactly once). */
  done: boolean
  /** The listeners of this send, removed once reported. */
  listener?: () => void
}

/**
 * Wraps `XMLHttpRequest.prototype.open`, `setRequestHeader`, `send` and `abort`. Each `open()`
 * and `send()` pair is reported once, from the state at DONE (the first `readystatechange` to 4,
 * before `load` and `loadend`), or, when the page re-opens or aborts the object before our
 * listener ran, right before that call resets the state. An object the page reuses therefore
 * gets one row per request, each with its own status.
 */
export function wrapXhr(sink: Sink): void {
  if (typeof XMLHttpRequest === 'undefined') return
  const proto = XMLHttpRequest.prototype
  const { open, send, setRequestHeader, abort } = proto
  const meta = new WeakMap<XMLHttpRequest, XhrMeta>()

  /** Reports `m` once: from the object's state, or as failed for `failure` (cancelled). */
  function finish(xhr: XMLHttpRequest, m: XhrMeta, failure?: string): void {
    if (!m.sent || m.done) return
    m.done = true
    if (m.listener !== undefined) {
      xhr.removeEventListener('readystatechange', m.listener)
      xhr.removeEventListener('loadend', m.listener)
      m.listener = undefined
    }
    const status = failure !== undefined || xhr.status === 0 ? null : xhr.status
    const summary = status === null ? null : summaryOf(xhr.getResponseHeader('x-fw-debug'))
    let payload: Payload | null = null
    if (status !== null) {
      if (xhr.responseType === 'json') {
        const r = xhr.response as { _debug?: Payload } | null
        payload = r !== null && typeof r === 'object' && r._debug !== undefined ? r._debug : null
      } else if (xhr.responseType === '' || xhr.responseType === 'text') {
        if (JSON_TYPE.test(xhr.getResponseHeader('content-type') ?? ''))
          payload = payloadOf(xhr.responseText)
      }
    }
    const id =
      status === null ? null : (xhr.getResponseHeader('x-request-id') ?? summary?.id ?? null)
    sink({
      method: m.method,
      path: displayPath(m.url),
      status,
      start: m.start,
      end: performance.now(),
      payload,
      summary,
      id,
      body: m.body,
      contentType: m.contentType,
      ...(status === null ? { failure: failure ?? 'network error or aborted' } : {}),
    })
  }

  /** Before the page resets a finished request (open, abort): report it while it is intact. */
  function settle(xhr: XMLHttpRequest): XhrMeta | undefined {
    try {
      const m = meta.get(xhr)
      if (m !== undefined && m.sent && !m.done && xhr.readyState === DONE) finish(xhr, m)
      return m
    } catch {
      return undefined
    }
  }

  proto.open = function (this: XMLHttpRequest, method: string, url: string | URL) {
    const previous = settle(this)
    // eslint-disable-next-line prefer-rest-params -- open() takes 2 or 5 arguments
    const result = open.apply(this, arguments as unknown as Parameters<typeof open>)
    try {
      // A request still in flight was cancelled by this open(): it ends as a failed row.
      if (previous !== undefined && previous.sent && !previous.done)
        finish(this, previous, 'cancelled by a new open()')
      meta.set(this, {
        method: String(method).toUpperCase(),
        url: String(url),
        start: 0,
        body: undefined,
        contentType: '',
        sent: false,
        done: false,
      })
    } catch {
      // unrecorded, not broken
    }
    return result
  } as typeof open
  proto.setRequestHeader = function (this: XMLHttpRequest, name: string, value: string) {
    try {
      const m = meta.get(this)
      if (m !== undefined && !m.sent && String(name).toLowerCase() === 'content-type')
        m.contentType = String(value)
    } catch {
      // unrecorded, not broken
    }
    return setRequestHeader.call(this, name, value)
  }
  proto.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    let fresh: XhrMeta | undefined
    try {
      const m = meta.get(this)
      // Only a send() that can start a request (opened, not yet sent): a second send() throws
      // below and must not touch the request in flight.
      if (m !== undefined && !m.sent && this.readyState === OPENED) {
        m.sent = true
        m.start = performance.now()
        m.body = body ?? undefined
        // `this` inside the arrow is this XHR; a synchronous request reports inside send().
        const listener = () => {
          try {
            if (this.readyState === DONE) finish(this, m)
          } catch {
            // unrecorded, not broken
          }
        }
        m.listener = listener
        this.addEventListener('readystatechange', listener)
        this.addEventListener('loadend', listener)
        fresh = m
      }
    } catch {
      // unrecorded, not broken
    }
    try {
      return send.call(this, body)
    } catch (error) {
      try {
        // A synchronous request that failed throws without firing events: report it; a send()
        // refused before it started leaves nothing to report.
        if (fresh !== undefined && !fresh.done) {
          if (this.readyState === DONE) finish(this, fresh, messageOf(error))
          else {
            fresh.sent = false
            if (fresh.listener !== undefined) {
              this.removeEventListener('readystatechange', fresh.listener)
              this.removeEventListener('loadend', fresh.listener)
              fresh.listener = undefined
            }
          }
        }
      } catch {
        // nothing to undo
      }
      throw error
    }
  }
  proto.abort = function (this: XMLHttpRequest) {
    settle(this)
    return abort.call(this)
  }
}
