// The API tab: the operations of the project's OpenAPI document, each sendable through the real
// server (the wrapped fetch, so the call is recorded like any other). Requests go to the injected
// API prefix; the document's `servers` and any absolute URL in it are ignored.
import { unwrappedFetch } from './capture.js'
import { h, note } from './dom.js'
import type { View } from './state.js'
import type { Tab } from './tab.js'
import { messageOf } from '../../../kernel/message-of.js'

interface Operation {
  method: string
  path: string
  summary: string
  body: string | null
}

interface ApiState {
  doc: 'idle' | 'loading' | 'ok' | 'missing'
  message: string
  ops: Operation[]
  chosen: number | null
  path: string
  body: string
  reply: { status: number | string; text: string } | null
  sending: boolean
}

const st: ApiState = {
  doc: 'idle',
  message: '',
  ops: [],
  chosen: null,
  path: '',
  body: '',
  reply: null,
  sending: false,
}
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

type Json = Record<string, unknown>
const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined

function resolve(doc: Json, schema: unknown): Json | undefined {
  const s = obj(schema)
  const ref = s?.$ref
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    let at: unknown = doc
    for (const part of ref.slice(2).split('/'))
      at = obj(at)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    return obj(at)
  }
  return s
}

/** The textarea's starting text: the example, else one level of the schema's properties. */
function bodyTemplate(doc: Json, op: Json): string | null {
  const content = obj(obj(resolve(doc, op.requestBody))?.content)
  if (content === undefined) return null
  const media = obj(content['application/json']) ?? obj(Object.values(content)[0])
  if (media === undefined) return '{}'
  const schema = resolve(doc, media.schema)
  const example = media.example ?? schema?.example
  if (example !== undefined) return JSON.stringify(example, null, 2)
  const props = obj(schema?.properties) ?? {}
  const out: Json = {}
  for (const [k, raw] of Object.entries(props)) {
    const prop = resolve(doc, raw) ?? {}
    out[k] =
      prop.example ??
      prop.default ??
      ({ string: '', integer: 0, number: 0, boolean: false, array: [], object: {} } as Json)[
        String(prop.type)
      ] ??
      null
  }
  return JSON.stringify(out, null, 2)
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = []
  for (const [raw, item] of Object.entries(obj(doc.paths) ?? {})) {
    let path = raw
    // An absolute URL in the document is not followed: only its path is kept.
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
      try {
        path = new URL(path).pathname
      } catch {
        continue
      }
    }
    for (const m of METHODS) {
      const op = obj(obj(item)?.[m])
      if (op === undefined) continue
      out.push({
        method: m.toUpperCase(),
        path,
        summary: String(op.summary ?? op.operationId ?? ''),
        body: bodyTemplate(doc, op),
      })
    }
  }
  return out
}

function load(view: View): void {
  const url = view.config.openapi!
  st.doc = 'loading'
  unwrappedFetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then(async (res) => {
      if (!res.ok) throw new Error(`${res.status}`)
      const doc = obj(await res.json())
      if (doc === undefined || obj(doc.paths) === undefined)
        throw new Error('not an OpenAPI document')
      st.ops = operations(doc)
      st.doc = 'ok'
    })
    .catch((error: unknown) => {
      st.doc = 'missing'
      st.message = messageOf(error)
    })
    .finally(() => view.refresh())
}

/**
 * Where an operation's path is sent: under the injected prefix (`/products` → `/api/v1/products`),
 * unless the document's paths are already rooted where the prefix is (`/api/v2/products`, from a
 * document of every `/api/*` route, keeps its own version).
 */
function target(view: View, path: string): string {
  const prefix = (view.config.apiPrefix ?? '').replace(/\/+$/, '')
  const root = /^\/[^/]+/.exec(prefix)?.[0]
  return root !== undefined && (path === root || path.startsWith(`${root}/`))
    ? path
    : `${prefix}${path.startsWith('/') ? '' : '/'}${path}`
}

function send(view: View, op: Operation): void {
  const headers: Record<string, string> = { accept: 'application/json' }
  const key = view.config.apiKey
  if (key !== undefined && key !== '') headers[view.config.apiKeyHeader ?? 'apikey'] = key
  const csrf = document.querySelector('meta[name="csrf"]')?.getAttribute('content')
  if (csrf) headers['x-csrf-token'] = csrf
  try {
    const token =
      view.config.tokenKey === undefined ? null : window.localStorage.getItem(view.config.tokenKey)
    if (token) headers.authorization = `Bearer ${token}`
  } catch {
    // no storage: no bearer token
  }
  const init: RequestInit = { method: op.method, headers, credentials: 'same-origin' }
  if (op.body !== null && op.method !== 'GET' && op.method !== 'HEAD') {
    headers['content-type'] = 'application/json'
    init.body = st.body
  }
  st.sending = true
  view.refresh()
  // The page's (wrapped) fetch: the call is recorded as a row like any other.
  window
    .fetch(st.path, init)
    .then(async (res) => {
      const text = await res.text()
      st.reply = {
        status: res.status,
        text: text.length > 8192 ? `${text.slice(0, 8192)}\n… (cut)` : text,
      }
    })
    .catch((error: unknown) => (st.reply = { status: 'failed', text: String(error) }))
    .finally(() => {
      st.sending = false
      view.refresh()
    })
}

function credentials(view: View): string {
  const parts: string[] = []
  if (view.config.apiKey)
    parts.push(
      `application API key from configuration (header ${view.config.apiKeyHeader ?? 'apikey'})`,
    )
  parts.push('cookies (same origin)')
  if (view.config.tokenKey !== undefined)
    parts.push(`bearer token stored under localStorage "${view.config.tokenKey}" when present`)
  return `Sent with: ${parts.join(', ')}.`
}

/** One operation's pick button: a click chooses it (again: releases it) and resets the form. */
function operationButton(view: View, op: Operation, i: number): HTMLElement {
  return h(
    'div',
    { class: 'op' },
    h(
      'button',
      {
        class: 'pick',
        type: 'button',
        'data-op': `${op.method} ${op.path}`,
        'data-key': `op:${i}`,
        'aria-pressed': st.chosen === i ? 'true' : 'false',
        'on:click': () => {
          st.chosen = st.chosen === i ? null : i
          st.path = target(view, op.path)
          st.body = op.body ?? ''
          st.reply = null
          view.refresh()
        },
      },
      h('span', { class: 'method' }, op.method),
      h('code', null, op.path),
      op.summary === '' ? '' : ` — ${op.summary}`,
    ),
  )
}

/** The request body's textarea, its text set as a property (the form's state, not markup). */
function bodyField(): HTMLTextAreaElement {
  const ta = h('textarea', {
    'aria-label': 'Request body',
    name: 'body',
    'data-key': 'api:body',
    'on:input': (e: Event) => (st.body = (e.target as HTMLTextAreaElement).value),
  }) as HTMLTextAreaElement
  ta.value = st.body
  return ta
}

/** The chosen operation's form: path, body when it takes one, send button, the last reply. */
function requestForm(view: View, chosen: Operation): HTMLElement {
  return h(
    'form',
    {
      'data-form': true,
      'on:submit': (e: Event) => (e.preventDefault(), send(view, chosen)),
    },
    h('h3', null, `${chosen.method} request`),
    h('input', {
      class: 'path',
      'aria-label': 'Path',
      name: 'path',
      value: st.path,
      'data-key': 'api:path',
      'on:input': (e: Event) => (st.path = (e.target as HTMLInputElement).value),
    }),
    chosen.body === null ? null : bodyField(),
    h(
      'p',
      null,
      h(
        'button',
        { class: 'small', type: 'submit', 'data-key': 'api:send', disabled: st.sending },
        st.sending ? 'Sending…' : 'Send',
      ),
    ),
    st.reply === null
      ? null
      : [
          h('h3', null, `Reply: ${st.reply.status}`),
          h('pre', { 'data-reply': true }, st.reply.text),
        ],
  )
}

export const API: Tab = {
  id: 'api',
  label: 'API',
  live: false,
  visible: (v) => typeof v.config.openapi === 'string' && v.config.openapi !== '',
  count: () => (st.doc === 'ok' ? String(st.ops.length) : undefined),
  render(view) {
    if (st.doc === 'idle') load(view)
    if (st.doc === 'idle' || st.doc === 'loading') return note(`Reading ${view.config.openapi}…`)
    if (st.doc === 'missing')
      return note(`No OpenAPI document is served at ${view.config.openapi} (${st.message}).`)
    const chosen = st.chosen === null ? undefined : st.ops[st.chosen]
    return h(
      'div',
      { 'data-api': true },
      h(
        'p',
        { class: 'note' },
        `${st.ops.length} operations from ${view.config.openapi}, sent to ${view.config.apiPrefix || '/'}. ${credentials(view)}`,
      ),
      st.ops.map((op, i) => operationButton(view, op, i)),
      chosen === undefined ? null : requestForm(view, chosen),
    )
  },
}
