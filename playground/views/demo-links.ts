/** A link on the home page: where it goes and what it shows (trusted HTML). */
export interface DemoLink {
  readonly href: string
  readonly what: string
}

/** The demo routes the home page links to (playground/README.md "Routes" describes each). */
export const DEMO_LINKS: readonly DemoLink[] = [
  { href: '/_demo/ping', what: 'JSON <code>{"hello":"world","n":1}</code>, touching nothing else' },
  { href: '/_demo/array', what: 'a top-level JSON array' },
  { href: '/_demo/text', what: 'a plain-text body' },
  { href: '/_demo/fragment', what: 'an HTML fragment without <code>&lt;/body&gt;</code>' },
  { href: '/_demo/empty', what: '204, no body' },
  { href: '/_demo/redirect', what: '302 back to this page' },
  { href: '/_demo/error', what: 'a handler that throws' },
  {
    href: '/_demo/queries?n=5',
    what: 'five database queries, each a <code>query.executed</code> event',
  },
  { href: '/api/v1/products/1', what: 'a product through the API (JSON)' },
  { href: '/api/v2/products', what: 'the v2 list shape' },
  {
    href: '/products',
    what: 'a products table that pages, sorts and searches through the list engine',
  },
  { href: '/login', what: 'sign in (a web session with a CSRF token)' },
  {
    href: '/?r=demo/echo/x',
    what: 'the classic controller <code>demo</code>: legacy decomposition with an option',
  },
  { href: '/?r=demo/echo/c/d', what: 'the same with a key/value pair from the path' },
]
