import { safeDecode } from './path.js'

/** A request decomposed the classic way: `controller/action[/option | /key/value…]`. */
export interface LegacyRequest {
  readonly controller: string
  /** The action segment; `''` when the request names none (it is reset on every decomposition). */
  readonly action: string
  /** What the option accessor answers: the third segment, or a trailing unpaired key. */
  readonly option: string | undefined
  /** The GET parameters: those given, the query inside `r`, and key/value pairs from the path. */
  readonly get: Record<string, unknown>
  /** Every segment after controller and action, passed to a classic action as its first argument. */
  readonly args: string[]
  /** The value decomposed: `r`, or the rewritten value when one was given. */
  readonly originalRequest: string
  /** `r` exactly as it arrived. */
  readonly originalRequestNoChange: string
}

/**
 * Decomposes the legacy `r` routing parameter. The branch is chosen by the number of slashes in
 * the path part only (a `?` inside `r` starts a query that is parsed into `get`):
 * `a` → controller; `a/b` → action; `a/b/x` → option `x`; `a/b/c/d` → `c = d`;
 * `a/b/c/d/e` → `c = d`, `e = null`, option `e`. Existing GET keys are never overwritten by path pairs.
 *
 * @param rewritten the value to decompose instead of `r`, as the admin area passes it after
 *   stripping its prefix; it becomes `originalRequest`.
 * @example
 * decomposeLegacy('shop/view/id/5', {}).get // { id: '5' }
 */
export function decomposeLegacy(
  r: string,
  get: Record<string, unknown>,
  rewritten?: string,
): LegacyRequest {
  const source = rewritten ?? r
  const q = source.indexOf('?')
  const out = copyWithoutR(get)
  if (q !== -1)
    for (const [key, value] of new URLSearchParams(source.slice(q + 1))) define(out, key, value)
  const segments = (q === -1 ? source : source.slice(0, q)).split('/').filter((s) => s !== '')
  return decompose(segments, out, source, r)
}

/**
 * Decomposes a request path (`/shop/view/5`) the same way, percent-decoding each segment.
 * Undefined when a segment is malformed or decodes to a `/` or `?`, which would change the branch.
 */
export function decomposeLegacyPath(
  path: string,
  get: Record<string, unknown>,
  rewritten?: string,
): LegacyRequest | undefined {
  const source = rewritten ?? path
  const segments: string[] = []
  for (const raw of source.split('/')) {
    if (raw === '') continue
    const segment = raw.includes('%') ? safeDecode(raw) : raw
    if (segment === undefined || segment.includes('/') || segment.includes('?')) return undefined
    segments.push(segment)
  }
  return decompose(segments, copyWithoutR(get), segments.join('/'), path.replace(/^\/+/, ''))
}

function decompose(
  segments: readonly string[],
  get: Record<string, unknown>,
  originalRequest: string,
  noChange: string,
): LegacyRequest {
  const slashes = segments.length - 1
  let option: string | undefined
  if (slashes === 2) option = segments[2]
  else if (slashes >= 3) {
    // Pairs after controller and action; a trailing unpaired key is null and becomes the option.
    for (let i = 2; i < segments.length; i += 2) {
      const key = segments[i] as string
      const value = segments[i + 1]
      if (key.trim() === '') continue
      if (value === undefined) option = key
      if (!Object.hasOwn(get, key)) define(get, key, value ?? null)
    }
  }
  return {
    controller: segments[0] ?? '',
    action: segments[1] ?? '',
    option,
    get,
    args: segments.slice(2),
    originalRequest,
    originalRequestNoChange: noChange,
  }
}

function copyWithoutR(get: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(get)) if (key !== 'r') define(out, key, get[key])
  return out
}

/** Defines an own property, so that a key such as `__proto__` from a URL stays a plain key. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  })
}
