// Redaction at capture time: what enters a debug payload (query parameters, request bodies,
// session values, log context, SQL parameters) has its secrets replaced with `***` first.

/** What a secret is replaced with. */
export const MASK = '***'

/**
 * Key endings that mark a secret, compared lower-cased with `-`, `_`, `.` and spaces removed:
 * `password`, `client_secret`, `access_token`, `Authorization`, `set-cookie`, `x-api-key`,
 * `csrfToken`, `private_key`, `totp_code`, `backup_code`. `token_type` and `tokenCount` are not.
 */
const SECRET_KEY =
  /(?:password|passwd|passphrase|secret|token|apikey|authorization|auth|cookie|privatekey|sessionid|session|credentials?|csrf|xsrf|otp|totp|totpcode|otpcode|backupcode|signature|jwt|bearer|hash|salt|pin)s?$/
const SECRET_EXACT = new Set(['pwd', 'pass', 'code', 'key', 'appkey', 'nonce'])
const SECRET_ANYWHERE = /password|passwd|secret|csrf|xsrf|totp|apikey|privatekey|accesstoken/

/** True when a key (an object key, a query parameter, a column) names a secret. */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_.\s]/g, '')
  return SECRET_EXACT.has(k) || SECRET_KEY.test(k) || SECRET_ANYWHERE.test(k)
}

const JWT = /^[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/
const BEARER = /^(?:bearer|basic|token)\s+\S+/i
/** Long unbroken high-entropy strings: hashes, API keys, opaque tokens. */
const OPAQUE = /^[A-Za-z0-9+/_=.:-]{40,}$/

/** True when a value looks like a credential whatever its key (a JWT, `Bearer …`, a long hash). */
export function isSecretValue(value: unknown): boolean {
  if (typeof value !== 'string') return false
  if (value.length < 20) return false
  return JWT.test(value) || BEARER.test(value) || (OPAQUE.test(value) && /\d/.test(value))
}

const MAX_DEPTH = 8

/**
 * A copy of `value` with every secret-looking key's value (at any depth) and every
 * secret-looking value replaced by `***`. Cycles become `'[Circular]'`, nesting deeper than eight
 * levels `'[Object]'`; the caller's objects are never changed.
 */
export function redact(value: unknown, extraSecret?: (value: string) => boolean): unknown {
  return clean(value, 0, new WeakSet(), extraSecret)
}

function clean(
  value: unknown,
  depth: number,
  seen: WeakSet<object>,
  extra: ((value: string) => boolean) | undefined,
): unknown {
  if (typeof value === 'string')
    return isSecretValue(value) || (extra !== undefined && extra(value)) ? MASK : value
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : value
  }
  if (value instanceof Date) return value.toISOString()
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (seen.has(value)) return '[Circular]'
  if (depth >= MAX_DEPTH) return '[Object]'
  seen.add(value)
  let out: unknown
  if (Array.isArray(value)) out = value.map((item) => clean(item, depth + 1, seen, extra))
  else {
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value))
      copy[key] = isSecretKey(key) ? MASK : clean(item, depth + 1, seen, extra)
    out = copy
  }
  seen.delete(value)
  return out
}

/**
 * The bound parameters of a statement with secrets masked: a parameter whose column (`"col" = ?`,
 * or its place in an `insert … (cols) values (?, …)` list) names a secret, or whose value looks
 * like a credential, becomes `***`.
 */
export function redactParams(sql: string, params: readonly unknown[]): unknown[] {
  if (params.length === 0) return []
  const columns = placeholderColumns(sql)
  return params.map((p, i) => {
    const column = columns[i]
    if (column !== undefined && isSecretKey(column)) return MASK
    return clean(p, 1, new WeakSet(), undefined)
  })
}

/** For each `?` placeholder (in order), the column it is compared with or inserted into, if known. */
function placeholderColumns(sql: string): (string | undefined)[] {
  const out: (string | undefined)[] = []
  const insert = /^\s*insert\s+into\s+\S+\s*\(([^)]*)\)\s*values\s*\(/i.exec(sql)
  let from = 0
  if (insert !== null) {
    const cols = insert[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))
    // The first values tuple, split at top-level commas: each `?` gets the column at its place.
    let depth = 0
    let item = 0
    let i = insert[0].length
    for (; i < sql.length; i++) {
      const c = sql[i]
      if (c === '(') depth++
      else if (c === ')') {
        if (depth === 0) break
        depth--
      } else if (c === ',' && depth === 0) item++
      else if (c === '?') out.push(cols[item])
    }
    from = i
  }
  const re = /(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_]*))\s*(?:=|<>|!=|like|ilike|in\s*\()\s*\(?\s*$/i
  for (let i = from; i < sql.length; i++) {
    if (sql[i] !== '?') continue
    const m = re.exec(sql.slice(Math.max(0, i - 80), i))
    out.push(m === null ? undefined : (m[1] ?? m[2]))
  }
  return out
}
