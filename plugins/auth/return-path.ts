const ORIGIN = 'http://fw.invalid'

/**
 * The same-site path a `return=` value names, or undefined when it could lead off the site. The
 * value is resolved first (dot segments removed, as a browser would), then checked: both what was
 * sent and what it resolves to must be a path starting with one `/` (not `//`, not `/\`), without
 * control characters or backslashes, also once percent-decoded (up to three times, for
 * double-encoded attempts), on this origin. Checking only what was sent let `/x/..//evil.test`
 * through: it resolves to `//evil.test`, which a browser takes for another host.
 *
 * @example
 * safeReturnPath('/products?page=2') // '/products?page=2'
 * safeReturnPath('//evil.test')      // undefined
 * safeReturnPath('/.//evil.test')    // undefined
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined
  if (!isPlainThroughDecoding(value)) return undefined
  let url: URL
  try {
    url = new URL(value, ORIGIN)
  } catch {
    return undefined
  }
  if (url.origin !== ORIGIN) return undefined
  const resolved = `${url.pathname}${url.search}${url.hash}`
  return isPlainThroughDecoding(resolved) ? resolved : undefined
}

/** {@link isPlainPath} for the value and each of its percent-decodings (up to three). */
function isPlainThroughDecoding(value: string): boolean {
  let current = value
  for (let i = 0; i < 4; i++) {
    if (!isPlainPath(current)) return false
    let decoded: string
    try {
      decoded = decodeURIComponent(current)
    } catch {
      // Undecodable as it came: refuse; undecodable after a decoding: it was a literal `%`.
      return i !== 0
    }
    if (decoded === current) return true
    current = decoded
  }
  return true
}

function isPlainPath(path: string): boolean {
  if (path[0] !== '/') return false
  if (path[1] === '/' || path[1] === '\\') return false
  // Control characters (browsers strip tabs and newlines: `/\t/evil`) and backslashes (`\` is `/`
  // to a browser) have no place in a return path.
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u001f\u007f\\]/.test(path)
}
