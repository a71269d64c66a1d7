// A tiny element builder: attributes through setAttribute, text through text nodes, never HTML
// parsing, so no value from a payload, a page or storage can become markup.

export type Child = Node | string | number | null | undefined | false | Child[]
type Attr = string | number | boolean | null | undefined | ((event: Event) => void)

/**
 * `h('button', {class: 'tab', 'on:click': fn}, 'SQL ', count)`. `false`/`null`/`undefined`
 * attributes and children are left out; `true` sets an empty attribute.
 */
export function h(
  tag: string,
  attrs?: Record<string, Attr> | null,
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag)
  if (attrs)
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue
      if (k.startsWith('on:')) el.addEventListener(k.slice(3), v as (event: Event) => void)
      else el.setAttribute(k, v === true ? '' : String(v))
    }
  append(el, children)
  return el
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    if (Array.isArray(c)) append(el, c)
    else el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)))
  }
}

/** Milliseconds for display: `0.42 ms`, `12.3 ms`, `1,204 ms`. */
export function ms(value: number): string {
  const v =
    value < 10
      ? Math.round(value * 100) / 100
      : value < 100
        ? Math.round(value * 10) / 10
        : Math.round(value)
  return `${v.toLocaleString('en')} ms`
}

/** A value as short text: strings as they are, everything else as JSON. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** A two-column table of label → value; rows with an `undefined` value are left out. */
export function dl(pairs: [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'kv' },
    pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
  )
}

/** A table with a header row. */
export function table(head: string[], rows: Child[][], cls = ''): HTMLElement {
  return h(
    'table',
    { class: `grid ${cls}` },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        head.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((r) =>
        h(
          'tr',
          null,
          r.map((c) => h('td', null, c)),
        ),
      ),
    ),
  )
}

/** Folded text (a stack, a context object, a long value): a `<details>` with a summary line. */
export function folded(summary: Child, body: string, key?: string): HTMLElement {
  return h('details', { 'data-key': key }, h('summary', null, summary), h('pre', null, body))
}

/** A paragraph saying why a section is empty. */
export function note(message: Child): HTMLElement {
  return h('p', { class: 'note' }, message)
}
