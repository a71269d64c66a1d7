const ORIGIN = 'http://fw.invalid'

/**
 * The same-site path a `return=` value names, or undefined when it could lead off the site: it
 * must be a path starting with one `/` (not `//`, not `/\`), without control characters or
 * backslashes, also once percent-decoded (up to three times, for double-encoded attempts), and it
 * must resolve to this origin. Answers the normalised path, query and fragment.
 *
 * @example
 * safeReturnPath('/products?page=2') // '/products?page=2'
 * safeReturnPath('//evil.test')      // undefined
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined
  let current = value
  for (let i = 0; i < 4; i++) {
    if (!isPlainPath(current)) return undefined
    let decoded: string
    try {
      decoded = decodeURIComponent(current)
    } catch {
      // Undecodable as it came: refuse; undecodable after a decoding: it was a literal `%`.
      if (i === 0) return undefined
      break
    }
    if (decoded === current) break
    current = decoded
  }
  let url: URL
  try {
    url = new URL(value, ORIGIN)
  } catch {
    return undefined
  }
  if (url.origin !== ORIGIN) return undefined
  return `${url.pathname}${url.search}${url.hash}`
}

function isPlainPath(path: string): boolean {
  if (path[0] !== '/') return false
  if (path[1] === '/' || path[1] === '\\') return false
  // Control characters (browsers strip tabs and newlines: `/\t/evil`) and backslashes (`\` is `/`
  // to a browser) have no place in a return path.
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u001f\u007f\\]/.test(path)
}
