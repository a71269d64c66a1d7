// The toolbar: a strip of tabs fixed at the bottom of the page inside a shadow root, a panel
// above it, and a handle at bottom right when hidden. One instance per page
// (`window.__fwDebugBar`); both deliveries build this same object.
import { bodyView } from './body.js'
import type { Captured } from './capture.js'
import { h, ms, type Child } from './dom.js'
import type { Payload, Row, ToolbarConfig } from './payload.js'
import { rowName, type ClientError, type View } from './state.js'
import { STYLES } from './styles.js'
import { createHost, storedHidden, storeHidden } from './host.js'
import { changeNote, failureOverlay, type DevChange, type DevFailure } from './dev-notices.js'
import type { Tab } from './tab.js'
import { TABS } from './tabs.js'
import { messageOf } from '../../../kernel/message-of.js'

export class Bar implements View {
  rows: Row[] = []
  selected: Row | null = null
  errors: ClientError[] = []
  logOffer: 'on' | 'off' = 'on'
  readonly config: ToolbarConfig
  readonly spa: boolean
  readonly host: HTMLElement
  readonly #root: ShadowRoot
  readonly #bar: HTMLElement
  readonly #head: HTMLElement
  /** The tabs alone: a `tablist` owns only `tab`s, so the brand, chip and close stay outside. */
  readonly #tabs: HTMLElement
  readonly #panel: HTMLElement
  readonly #handle: HTMLElement
  #open: Tab | null = null
  #hidden: boolean
  #scheduled = false
  #expiryTimer: ReturnType<typeof setTimeout> | undefined
  /** `fw dev`'s overlay for a build that did not load, and its note of the last change. */
  #devFailure: HTMLElement | null = null
  #devNote: HTMLElement | null = null

  constructor(config: ToolbarConfig, spa: boolean, nonce: string) {
    this.config = config
    this.spa = spa
    this.host = createHost()
    this.#root = this.host.attachShadow({ mode: 'open' })
    const style = document.createElement('style')
    if (nonce !== '') style.nonce = nonce
    style.textContent = STYLES
    this.#head = h('div', { class: 'head' })
    this.#tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'fw debug toolbar' })
    this.#panel = h('div', { class: 'panel', role: 'tabpanel', hidden: true })
    this.#bar = h('div', { class: 'bar', part: 'bar' }, this.#panel, this.#head)
    this.#handle = h(
      'button',
      {
        class: 'handle',
        type: 'button',
        'aria-label': 'Show the fw debug toolbar',
        title: 'Show the fw debug toolbar',
        'on:click': () => this.setHidden(false),
      },
      'fw',
    )
    this.#root.append(style, this.#bar, this.#handle)
    this.#hidden = storedHidden()
    this.#root.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Escape' && this.#open !== null) this.#toggle(this.#open)
    })
    this.#applyHidden()
  }

  /** Puts the bar on the page (once the body exists). */
  mount(): void {
    const attach = () => {
      if (!this.host.isConnected) (document.body ?? document.documentElement).appendChild(this.host)
      this.#render()
    }
    if (document.body !== null) attach()
    else document.addEventListener('DOMContentLoaded', attach, { once: true })
  }

  get current(): Row | null {
    if (this.selected !== null) return this.selected
    if (!this.spa) {
      const own = this.rows.find((r) => r.own)
      if (own !== undefined) return own
    }
    return this.rows.at(-1) ?? null
  }

  /** The page's own request, from the island. */
  addOwn(payload: Payload): Row {
    const nav = performance.getEntriesByType?.('navigation')[0] as
      PerformanceNavigationTiming | undefined
    const client =
      nav !== undefined && nav.responseEnd > 0 ? nav.responseEnd - nav.requestStart : null
    const row: Row = {
      n: this.rows.length + 1,
      method: payload.request?.method ?? 'GET',
      path: location.pathname + location.search,
      status: payload.request?.status ?? null,
      ms: client !== null && client >= 0 ? client : null,
      start: nav?.requestStart ?? 0,
      end: nav !== undefined && nav.responseEnd > 0 ? nav.responseEnd : null,
      payload,
      summary: null,
      id: payload.request?.id ?? null,
      body: bodyView(payload.request?.body),
      own: true,
    }
    this.rows.push(row)
    // The inline script runs while the page is still arriving: the navigation's end (and so the
    // client time) is known once the document is parsed.
    if (row.ms === null) {
      const fill = () => {
        const n = performance.getEntriesByType?.('navigation')[0] as
          PerformanceNavigationTiming | undefined
        if (n === undefined || n.responseEnd <= 0) return
        row.ms = n.responseEnd - n.requestStart
        row.start = n.requestStart
        row.end = n.responseEnd
        this.#changed()
      }
      if (document.readyState === 'loading')
        document.addEventListener('DOMContentLoaded', fill, { once: true })
      else fill()
    }
    this.#changed()
    return row
  }

  /** A request the page made (wrapped fetch or XHR), or one an app reported through `record()`. */
  add(c: Captured): Row {
    const row: Row = {
      n: this.rows.length + 1,
      method: c.method,
      path: c.path,
      status: c.status,
      ms: c.end >= c.start ? c.end - c.start : null,
      start: c.start,
      end: c.end,
      payload: c.payload,
      summary: c.summary,
      id: c.id ?? c.payload?.request?.id ?? null,
      body: bodyView(c.body, c.contentType),
      own: false,
      ...(c.failure === undefined ? {} : { failure: c.failure }),
    }
    this.rows.push(row)
    this.#changed()
    return row
  }

  /** A client-side failure; identical ones (kind, message, first stack line) collapse into a count. */
  addError(kind: string, error: unknown): void {
    const e = error instanceof Error ? error : null
    const message =
      e !== null ? `${e.name}: ${e.message}` : typeof error === 'string' ? error : safeJson(error)
    const stack = e?.stack ?? ''
    const first = stack.split('\n').find((l) => /\bat\b|@/.test(l)) ?? ''
    const same = this.errors.find(
      (x) =>
        x.kind === kind &&
        x.message === message &&
        (x.stack.split('\n').find((l) => /\bat\b|@/.test(l)) ?? '') === first,
    )
    if (same !== undefined) same.count++
    else this.errors.push({ kind, message, stack, after: this.rows.at(-1) ?? null, count: 1 })
    this.#changed()
  }

  /** Shows `fw dev`'s failure over the page (even with the bar hidden); null takes it away. */
  devFailure(failure: DevFailure | null): void {
    this.#devFailure?.remove()
    this.#devFailure = null
    if (failure === null) return
    this.#devFailure = failureOverlay(failure, () => this.devFailure(null))
    this.#root.append(this.#devFailure)
  }

  /** Says in the head what `fw dev` changed before this page reloaded. */
  devServed(change: DevChange): void {
    this.#devNote = changeNote(change)
    this.#renderHead()
  }

  select(row: Row | null): void {
    this.selected = row === null || row === this.selected ? null : row
    this.#render()
  }

  refresh(): void {
    // The head too: a tab's count may change with what the panel loaded (the API tab's operations).
    this.#render()
  }

  setHidden(hidden: boolean): void {
    this.#hidden = hidden
    storeHidden(hidden)
    this.#applyHidden()
    if (hidden) this.#handle.focus()
    else (this.#head.querySelector('.tab') as HTMLElement | null)?.focus()
  }

  get hidden(): boolean {
    return this.#hidden
  }

  #applyHidden(): void {
    this.#bar.hidden = this.#hidden
    this.#handle.hidden = !this.#hidden
    this.host.toggleAttribute('hidden-bar', this.#hidden)
    if (this.#hidden) {
      this.host.style.setProperty('left', 'auto', 'important')
      this.host.style.setProperty('right', '8px', 'important')
      this.host.style.setProperty('bottom', '8px', 'important')
    } else {
      this.host.style.setProperty('left', '0', 'important')
      this.host.style.setProperty('right', '0', 'important')
      this.host.style.setProperty('bottom', '0', 'important')
    }
  }

  /** Coalesces the renders of many requests arriving together into one. */
  #changed(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.#scheduled = false
      this.#render(true)
    })
  }

  #toggle(tab: Tab): void {
    this.#open = this.#open === tab ? null : tab
    this.#render()
  }

  #render(fromData = false): void {
    const focused = (this.#root.activeElement as HTMLElement | null)?.dataset.key
    this.#renderHead()
    if (!fromData || this.#open?.live !== false) this.#renderPanel()
    if (focused !== undefined)
      (
        this.#root.querySelector(`[data-key="${CSS.escape(focused)}"]`) as HTMLElement | null
      )?.focus()
    this.#watchExpiry()
  }

  #renderHead(): void {
    const tabs = TABS.filter((t) => t.visible(this))
    if (this.#open !== null && !tabs.includes(this.#open)) this.#open = null
    const cur = this.current
    const chip: Child =
      this.selected === null
        ? null
        : h(
            'button',
            {
              class: 'chip',
              type: 'button',
              title: 'Release the selection',
              'data-key': 'chip',
              'on:click': () => this.select(null),
            },
            `${rowName(this.selected)} ×`,
          )
    const summary: Child =
      cur === null
        ? null
        : h(
            'span',
            { class: 'sum' },
            [
              cur.status ?? 'failed',
              (cur.payload?.time ?? cur.summary?.time) !== undefined
                ? ms((cur.payload?.time ?? cur.summary?.time)!)
                : null,
              cur.payload?.memory !== undefined ? `${cur.payload.memory} MB` : null,
            ]
              .filter((x) => x !== null)
              .join(' · '),
          )
    this.#tabs.replaceChildren(
      ...tabs.map((t) => {
        const alert = t.alert?.(this) === true
        const count = t.count?.(this)
        return h(
          'button',
          {
            class: `tab${alert ? ' alert' : ''}`,
            type: 'button',
            role: 'tab',
            'data-tab': t.id,
            'data-key': `tab:${t.id}`,
            'aria-selected': this.#open === t ? 'true' : 'false',
            'aria-controls': 'fw-panel',
            'on:click': () => this.#toggle(t),
          },
          alert ? '⚠ ' : null,
          t.label,
          count === undefined || count === '' ? null : h('span', { class: 'count' }, count),
        )
      }),
    )
    this.#head.replaceChildren(
      h('span', { class: 'brand', 'aria-hidden': 'true' }, 'fw'),
      this.#tabs,
      h('span', { class: 'spacer' }),
      this.#devNote ?? '',
      chip ?? '',
      summary ?? '',
      h(
        'button',
        {
          class: 'close',
          type: 'button',
          'aria-label': 'Hide the fw debug toolbar',
          title: 'Hide',
          'data-key': 'close',
          'on:click': () => this.setHidden(true),
        },
        '×',
      ),
    )
  }

  #renderPanel(): void {
    const tab = this.#open
    this.#panel.hidden = tab === null
    this.#panel.id = 'fw-panel'
    if (tab === null) {
      this.#panel.replaceChildren()
      return
    }
    this.#panel.dataset.panel = tab.id
    // Keep what the reader unfolded across re-renders.
    const open = new Set(
      Array.from(
        this.#panel.querySelectorAll('details[open]'),
        (d) => (d as HTMLElement).dataset.key,
      ),
    )
    let content: Node
    try {
      content = tab.render(this)
    } catch (error) {
      content = h('p', { class: 'bad' }, `This tab failed to render: ${messageOf(error)}`)
    }
    const cur = this.current
    const body = cur?.body ?? null
    this.#panel.replaceChildren(
      // The request body, above every tab, API and Client included (README "The browser toolbar").
      body === null
        ? ''
        : h(
            'details',
            { class: 'reqbody', 'data-key': 'reqbody', 'data-body': true },
            h(
              'summary',
              null,
              `Request body of ${rowName(cur!)} (${body.size.toLocaleString('en')} characters${body.cut ? ', cut at 8 KB' : ''})`,
            ),
            h('pre', null, body.text + (body.cut ? '\n… (cut)' : '')),
          ),
      content,
    )
    for (const d of this.#panel.querySelectorAll('details'))
      if (open.has((d as HTMLElement).dataset.key)) (d as HTMLDetailsElement).open = true
  }

  /** Auth turns red once the expiry passes: re-render the head at that moment. */
  #watchExpiry(): void {
    clearTimeout(this.#expiryTimer)
    const exp = TABS.find((t) => t.id === 'auth')?.expiry?.(this)
    if (exp === undefined) return
    const wait = exp * 1000 - Date.now()
    if (wait > 0 && wait < 2 ** 31 - 1)
      this.#expiryTimer = setTimeout(() => this.#render(), wait + 50)
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
