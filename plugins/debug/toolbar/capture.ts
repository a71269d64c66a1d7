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

/** What a fetch call says about its request; a field that could not be read keeps its default. */
interface FetchCall {
  start: number
  method: string
  url: string
  body?: unknown
  contentType: string
  /** A `Request` body, read from a clone so the page's own request stays unread. */
  pendingBody?: Promise<string>
}

/** Reads the page's fetch arguments without consuming them; never throws. */
function readFetchCall(input: RequestInfo | URL, init: RequestInit | undefined): FetchCall {
  const call: FetchCall = { start: 0, method: 'GET', url: '', contentType: '' }
  try {
    call.start = performance.now()
    const request = typeof Request !== 'undefined' && input instanceof Request ? input : null
    call.url = request !== null ? request.url : String(input)
    call.method = (init?.method ?? request?.method ?? 'GET').toUpperCase()
    call.contentType = headerOf(init, request, 'content-type')
    if (init?.body !== undefined && init.body !== null) call.body = init.body
    else if (request !== null && request.body !== null && !request.bodyUsed)
      call.pendingBody = request.clone().text()
  } catch {
    // the row will just miss what could not be read
  }
  return call
}

/** Hands the row of `call` to the sink, once its request body (if any) was read. */
function reportFetch(
  sink: Sink,
  call: FetchCall,
  status: number | null,
  payload: Payload | null,
  summary: Summary | null,
  id: string | null,
  failure?: string,
): void {
  const end = performance.now()
  const done = (b: unknown) =>
    sink({
      method: call.method,
      path: displayPath(call.url),
      status,
      start: call.start,
      end,
      payload,
      summary,
      id,
      body: b,
      contentType: call.contentType,
      ...(failure === undefined ? {} : { failure }),
    })
  if (call.pendingBody === undefined) done(call.body)
  else call.pendingBody.then(done, () => done(undefined))
}

/** Reports a response: its debug payload is read from a clone, the page's body stays unread. */
function finishFetch(sink: Sink, call: FetchCall, response: Response): void {
  const summary = summaryOf(response.headers.get('x-fw-debug'))
  const id = response.headers.get('x-request-id') ?? summary?.id ?? null
  const type = response.headers.get('content-type') ?? ''
  if (JSON_TYPE.test(type) && response.body !== null && !response.bodyUsed) {
    response
      .clone()
      .text()
      .then(
        (text) => reportFetch(sink, call, response.status, payloadOf(text), summary, id),
        () => reportFetch(sink, call, response.status, null, summary, id),
      )
  } else reportFetch(sink, call, response.status, null, summary, id)
}

/** Records the outcome of the page's fetch promise; the promise itself is left untouched. */
function observeFetch(sink: Sink, call: FetchCall, result: Promise<Response>): void {
  try {
    result.then(
      (response) => {
        try {
          finishFetch(sink, call, response)
        } catch {
          // a response we cannot read still leaves the page's promise alone
        }
      },
      (error: unknown) => {
        try {
          reportFetch(sink, call, null, null, null, null, messageOf(error))
        } catch {
          // nothing to do
        }
      },
    )
  } catch {
    // `result` was not a promise (a page's own fetch replacement): nothing to record
  }
}

/** Wraps `window.fetch`: the original gets the page's exact arguments, its result is returned. */
export function wrapFetch(sink: Sink): void {
  const original = window.fetch
  if (typeof original !== 'function') return
  unwrappedFetch = original.bind(window)
  const wrapped = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
    // eslint-disable-next-line prefer-rest-params -- the page's exact arguments, however many
    const args = arguments as unknown as Parameters<typeof fetch>
    const call = readFetchCall(input, init)
    const result = original.apply(this === undefined ? window : this, args)
    observeFetch(sink, call, result)
    return result
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

/** Where rows go, and each XHR object's current `open()`/`send()` pair. */
interface XhrState {
  sink: Sink
  meta: WeakMap<XMLHttpRequest, XhrMeta>
}

/** Removes the listeners of `m`'s send, so that nothing reports it again. */
function detachXhr(xhr: XMLHttpRequest, m: XhrMeta): void {
  if (m.listener !== undefined) {
    xhr.removeEventListener('readystatechange', m.listener)
    xhr.removeEventListener('loadend', m.listener)
    m.listener = undefined
  }
}

/** The debug payload of a finished XHR's body, read only from types that leave it intact. */
function xhrPayload(xhr: XMLHttpRequest): Payload | null {
  if (xhr.responseType === 'json') {
    const r = xhr.response as { _debug?: Payload } | null
    return r !== null && typeof r === 'object' && r._debug !== undefined ? r._debug : null
  }
  if (xhr.responseType === '' || xhr.responseType === 'text') {
    if (JSON_TYPE.test(xhr.getResponseHeader('content-type') ?? ''))
      return payloadOf(xhr.responseText)
  }
  return null
}

/** Reports `m` once: from the object's state, or as failed for `failure` (cancelled). */
function finishXhr(sink: Sink, xhr: XMLHttpRequest, m: XhrMeta, failure?: string): void {
  if (!m.sent || m.done) return
  m.done = true
  detachXhr(xhr, m)
  const status = failure !== undefined || xhr.status === 0 ? null : xhr.status
  const summary = status === null ? null : summaryOf(xhr.getResponseHeader('x-fw-debug'))
  const payload = status === null ? null : xhrPayload(xhr)
  const id = status === null ? null : (xhr.getResponseHeader('x-request-id') ?? summary?.id ?? null)
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
function settleXhr(state: XhrState, xhr: XMLHttpRequest): XhrMeta | undefined {
  try {
    const m = state.meta.get(xhr)
    if (m !== undefined && m.sent && !m.done && xhr.readyState === DONE)
      finishXhr(state.sink, xhr, m)
    return m
  } catch {
    return undefined
  }
}

/** After `open()`: ends the request it cancelled, and starts recording the new one. */
function recordOpen(
  state: XhrState,
  xhr: XMLHttpRequest,
  previous: XhrMeta | undefined,
  method: string,
  url: string | URL,
): void {
  try {
    // A request still in flight was cancelled by this open(): it ends as a failed row.
    if (previous !== undefined && previous.sent && !previous.done)
      finishXhr(state.sink, xhr, previous, 'cancelled by a new open()')
    state.meta.set(xhr, {
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
}

/** Keeps the request's content type, as set before `send()`. */
function recordHeader(state: XhrState, xhr: XMLHttpRequest, name: string, value: string): void {
  try {
    const m = state.meta.get(xhr)
    if (m !== undefined && !m.sent && String(name).toLowerCase() === 'content-type')
      m.contentType = String(value)
  } catch {
    // unrecorded, not broken
  }
}

/** Before `send()`: marks the request sent and listens for DONE; returns it, or undefined. */
function recordSend(state: XhrState, xhr: XMLHttpRequest, body: unknown): XhrMeta | undefined {
  try {
    const m = state.meta.get(xhr)
    // Only a send() that can start a request (opened, not yet sent): a second send() throws
    // below and must not touch the request in flight.
    if (m !== undefined && !m.sent && xhr.readyState === OPENED) {
      m.sent = true
      m.start = performance.now()
      m.body = body ?? undefined
      // A synchronous request reports inside send().
      const listener = () => {
        try {
          if (xhr.readyState === DONE) finishXhr(state.sink, xhr, m)
        } catch {
          // unrecorded, not broken
        }
      }
      m.listener = listener
      xhr.addEventListener('readystatechange', listener)
      xhr.addEventListener('loadend', listener)
      return m
    }
  } catch {
    // unrecorded, not broken
  }
  return undefined
}

/** When `send()` threw: reports a failed synchronous request, or undoes a refused send. */
function sendFailed(state: XhrState, xhr: XMLHttpRequest, m: XhrMeta | undefined, error: unknown) {
  try {
    // A synchronous request that failed throws without firing events: report it; a send()
    // refused before it started leaves nothing to report.
    if (m !== undefined && !m.done) {
      if (xhr.readyState === DONE) finishXhr(state.sink, xhr, m, messageOf(error))
      else {
        m.sent = false
        detachXhr(xhr, m)
      }
    }
  } catch {
    // nothing to undo
  }
}

/**
 * Wraps `XMLHttpRequest.prototype.open`, `setRequestHeader`, `send` and `abort`. Each `open()`
 * and `send()` pair is reported once, from the state at DONE (the first `readystatechange` to 4,
 * before `load` and `loadend`), or, when the page re-opens or aborts the object before our
 * listener ran, right before that call resets the state. An object the page reuses therefore
 * gets one row per request, each with its own status (test/browser/requests.test.ts, 'one row per
 * request of a reused or synchronous XHR').
 */
export function wrapXhr(sink: Sink): void {
  if (typeof XMLHttpRequest === 'undefined') return
  const proto = XMLHttpRequest.prototype
  const { open, send, setRequestHeader, abort } = proto
  const state: XhrState = { sink, meta: new WeakMap<XMLHttpRequest, XhrMeta>() }

  proto.open = function (this: XMLHttpRequest, method: string, url: string | URL) {
    const previous = settleXhr(state, this)
    // eslint-disable-next-line prefer-rest-params -- open() takes 2 or 5 arguments
    const result = open.apply(this, arguments as unknown as Parameters<typeof open>)
    recordOpen(state, this, previous, method, url)
    return result
  } as typeof open
  proto.setRequestHeader = function (this: XMLHttpRequest, name: string, value: string) {
    recordHeader(state, this, name, value)
    return setRequestHeader.call(this, name, value)
  }
  proto.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    const fresh = recordSend(state, this, body)
    try {
      return send.call(this, body)
    } catch (error) {
      sendFailed(state, this, fresh, error)
      throw error
    }
  }
  proto.abort = function (this: XMLHttpRequest) {
    settleXhr(state, this)
    return abort.call(this)
  }
}
