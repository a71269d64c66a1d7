import { escapeHtml } from 'fw'
import { layout } from './layout.js'

/** A link on the home page: where it goes and what it shows. */
export interface DemoLink {
  readonly href: string
  readonly what: string
}

/** The demo routes the home page links to, in the order PLAYGROUND.md lists them. */
export const DEMO_LINKS: readonly DemoLink[] = [
  { href: '/_demo/ping', what: 'JSON <code>{"hello":"world","n":1}</code>, touching nothing else' },
  { href: '/_demo/array', what: 'a top-level JSON array' },
  { href: '/_demo/text', what: 'a plain-text body' },
  { href: '/_demo/fragment', what: 'an HTML fragment without <code>&lt;/body&gt;</code>' },
  { href: '/_demo/empty', what: '204, no body' },
  { href: '/_demo/redirect', what: '302 back to this page' },
  { href: '/_demo/error', what: 'a handler that throws' },
  {
    href: '/?r=demo/echo/x',
    what: 'the classic controller <code>demo</code>: legacy decomposition with an option',
  },
  { href: '/?r=demo/echo/c/d', what: 'the same with a key/value pair from the path' },
]

/** The home page: what the playground is and links to every demo route. */
export function homePage(appName: string): string {
  const rows = DEMO_LINKS.map(
    (l) =>
      `<tr><td><a href="${escapeHtml(l.href)}"><code>${escapeHtml(l.href)}</code></a></td><td>${l.what}</td></tr>`,
  ).join('\n')
  return layout(
    'Home',
    `<p>This is <strong>${escapeHtml(appName)}</strong>, the demo app of fw. Every route below answers something a test,
a benchmark or a curious developer can look at.</p>
<h2>Demo routes</h2>
<table>
${rows}
</table>
<p class="muted">Run <code>npx fw route:list</code> for every route the app declares.</p>`,
  )
}
