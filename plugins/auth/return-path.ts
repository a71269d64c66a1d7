const ORIGIN = 'http://fw.invalid'

/**
 * How many percent-decodings a `return=` value may take before it reads the same; a value still
 * changing after that many is refused (no real path is encoded five times over).
 */
const MAX_DECODINGS = 5

/**
 * The same-site path a `return=` value names, or undefined when it could lead off the site. The
 * value and each of its percent-decodings (until one reads the same, at most
 * {@link MAX_DECODINGS}) are resolved as a browser would (dot segments removed), and each must be,
 * before and after resolving, a path starting with one `/` (not `//`, not `/\`), without control
 * characters or backslashes, on this origin. Resolving only what was sent let `/x/..//evil.test`
 * through (it resolves to `//evil.test`, another host to a browser); resolving only the first
 * decoding let `/%252e%252e//evil.test` through (decoded twice it is `/..//evil.test`). The answer
 * is what was sent, resolved. Guarded by test/plugins/auth/return-path.test.ts.
 *
 * @example
 * safeReturnPath('/products?page=2')        // '/products?page=2'
 * safeReturnPath('//evil.test')             // undefined
 * safeReturnPath('/%252e%252e//evil.test')  // undefined
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined
  // Malformed as it came (`%E0%A4%A`): no browser or server reads it one way.
  try {
    decodeURIComponent(value)
  } catch {
    return undefined
  }
  const resolved = resolvePath(value)
  if (resolved === undefined) return undefined
  let current = value
  for (let decodings = 0; ; decodings++) {
    const decoded = percentDecode(current)
    if (decoded === current) return resolved
    if (decodings === MAX_DECODINGS || resolvePath(decoded) === undefined) return undefined
    current = decoded
  }
}

/** `path` resolved on this origin (dot segments removed), when it and its resolution are plain. */
function resolvePath(path: string): string | undefined {
  if (!isPlainPath(path)) return undefined
  let url: URL
  try {
    url = new URL(path, ORIGIN)
  } catch {
    return undefined
  }
  if (url.origin !== ORIGIN) return undefined
  const resolved = `${url.pathname}${url.search}${url.hash}`
  return isPlainPath(resolved) ? resolved : undefined
}

/**
 * One percent-decoding that never fails: each run of `%XX` becomes its bytes read as UTF-8 (an
 * invalid sequence as U+FFFD), a `%` not followed by two hex digits stays (`100%` is a literal).
 */
function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) =>
    Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'),
  )
}

function isPlainPath(path: string): boolean {
  if (path[0] !== '/') return false
  if (path[1] === '/' || path[1] === '\\') return false
  // Control characters (browsers strip tabs and newlines: `/\t/evil`) and backslashes (`\` is `/`
  // to a browser) have no place in a return path.
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u001f\u007f\\]/.test(path)
}
