// What happened in the browser: the Errors tab (window errors, unhandled rejections, reported
// failures, identical ones collapsed with a count) and the Client tab (runtime configuration,
// router state, storage), both masked by key name.
// The kernel's secret rule by path: importing `fw` would bundle the whole kernel for the browser.
import { isSecretKey, MASK, redact } from '../../../kernel/redact.js'
import { maskedValue } from './body.js'
import { dl, folded, h, note, table, text, type Child } from './dom.js'
import { rowName, type View } from './state.js'
import type { Tab } from './tab.js'
import { messageOf } from '../../../kernel/message-of.js'

export const ERRORS: Tab = {
  id: 'errors',
  label: 'Errors',
  visible: (v) => v.errors.length > 0,
  count: (v) => String(v.errors.reduce((n, e) => n + e.count, 0)),
  alert: () => true,
  render: (v) =>
    table(
      ['Kind', 'Message', 'Stack', 'After request'],
      v.errors.map((e, i) => [
        e.kind,
        h(
          'span',
          null,
          e.message,
          e.count > 1 ? h('span', { class: 'bad', 'data-count': e.count }, ` ×${e.count}`) : null,
        ),
        e.stack === '' ? '' : folded('stack', e.stack, `stack:${i}`),
        e.after === null ? '(before any request)' : rowName(e.after),
      ]),
      'errors',
    ),
}

/** Values longer than this are truncated in the Client tab. */
const LONG = 200

function short(value: string): string {
  return value.length > LONG ? `${value.slice(0, LONG)}… (${value.length} chars)` : value
}

type Section = { title: string; body: Child }

function storage(name: 'localStorage' | 'sessionStorage'): Section {
  let area: Storage | null | undefined
  try {
    area = window[name]
  } catch (error) {
    // Reading the property itself can throw (sandboxed iframes, blocked cookies): this section only.
    return {
      title: name,
      body: note(`unreadable: ${messageOf(error)}`),
    }
  }
  if (area === null || area === undefined) return { title: name, body: note('absent') }
  try {
    const rows: Child[][] = []
    for (let i = 0; i < area.length; i++) {
      const key = area.key(i)
      if (key === null) continue
      const value = area.getItem(key) ?? ''
      rows.push([h('code', null, key), h('code', null, short(maskedValue(key, value)))])
    }
    return {
      title: `${name} (${rows.length})`,
      body: rows.length === 0 ? note('empty') : table(['Key', 'Value'], rows, name),
    }
  } catch (error) {
    return {
      title: name,
      body: note(`unreadable: ${messageOf(error)}`),
    }
  }
}

interface FwGlobal {
  base?: unknown
  routerBase?: unknown
  router?: { base?: unknown; route?: unknown; params?: unknown }
}

function router(v: View, fw: FwGlobal | undefined): Section {
  const base = String(
    fw?.router?.base ??
      fw?.routerBase ??
      fw?.base ??
      (document.querySelector('base')?.getAttribute('href') || '/'),
  )
  const path = location.pathname
  const inside = path.startsWith(base) || `${path}/` === base
  // The page's own route on a server-rendered page; in an app, the current request's.
  const route = (v.rows.find((r) => r.own) ?? v.current)?.payload?.route
  const name =
    fw?.router?.route ?? (route && !route.missed ? (route.name ?? route.path) : undefined)
  const params = fw?.router?.params ?? (route && !route.missed ? route.params : undefined)
  return {
    title: 'Router',
    body: [
      dl([
        ['Current URL', h('code', null, location.href)],
        ['Router base', h('code', null, base)],
        [
          'Resolved route',
          name === undefined || name === null ? (inside ? 'none resolved' : undefined) : text(name),
        ],
        [
          'Parameters',
          params === undefined || params === null || !inside
            ? undefined
            : h('code', null, text(redact(params))),
        ],
      ]),
      inside
        ? null
        : h(
            'p',
            { class: 'note', 'data-outside': true },
            `The current path ${path} does not start with the router base ${base}, so the router does not handle this page.`,
          ),
    ],
  }
}

export const CLIENT: Tab = {
  id: 'client',
  label: 'Client',
  visible: () => true,
  live: false,
  render(v) {
    const sections: Section[] = []
    let fw: unknown
    try {
      fw = (window as unknown as { __FW__?: unknown }).__FW__
      sections.push({
        title: 'Runtime configuration (window.__FW__)',
        body:
          fw === undefined
            ? note('absent')
            : h(
                'pre',
                { 'data-fw-config': true },
                JSON.stringify(maskKeys(fw), null, 2) ?? String(fw),
              ),
      })
    } catch (error) {
      sections.push({
        title: 'Runtime configuration (window.__FW__)',
        body: note(`unreadable: ${String(error)}`),
      })
    }
    for (const make of [
      () => router(v, fw as FwGlobal | undefined),
      () => storage('localStorage'),
      () => storage('sessionStorage'),
    ]) {
      try {
        sections.push(make())
      } catch (error) {
        sections.push({ title: 'Section', body: note(`unreadable: ${String(error)}`) })
      }
    }
    return h(
      'div',
      null,
      sections.map((s) =>
        h('section', { 'data-section': s.title.split(' ')[0] }, h('h3', null, s.title), s.body),
      ),
    )
  },
}

/** `window.__FW__` with every secret-named key masked, at any depth. */
function maskKeys(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object')
    return typeof value === 'function' ? '[function]' : value
  if (seen.has(value) || depth > 8) return '[…]'
  seen.add(value)
  if (Array.isArray(value)) return value.map((x) => maskKeys(x, depth + 1, seen))
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(value))
    out[k] = isSecretKey(k) ? MASK : maskKeys(x, depth + 1, seen)
  return out
}
