// The one rule for secrets. Log lines, the `_debug` payload, `/health/phpinfo` and error reports all
// mask with it, so a key masked in one place is masked in all (docs/redaction.md lists the keys).
// Pure: no Node import, because the debug toolbar bundles it for the browser too.

/** What a secret is replaced with. */
export const MASK = '***'

/**
 * The built-in key list, as documented in docs/redaction.md. A key is compared lower-cased with
 * `-`, `_`, `.` and spaces removed (`client_secret` = `clientSecret` = `Client-Secret`), except
 * for `lastWord`, which compares the key's last word (split at those characters and at camelCase).
 */
export const SECRET_KEYS = {
  /** A key that is exactly one of these. */
  exact: ['pwd', 'pass', 'code', 'key', 'app_key', 'nonce', 'sig'],
  /** A key that ends with one of these, or with one of these plus `s`. */
  endings: [
    'password',
    'passwd',
    'passphrase',
    'secret',
    'token',
    'api_key',
    'authorization',
    'auth',
    'cookie',
    'private_key',
    'session_id',
    'session',
    'credential',
    'csrf',
    'xsrf',
    'otp',
    'totp',
    'otp_code',
    'totp_code',
    'backup_code',
    'signature',
    'jwt',
    'bearer',
    'hash',
    'salt',
    'pin',
    'client_id',
    'access_key_id',
  ],
  /** A key that contains one of these anywhere. */
  anywhere: [
    'password',
    'passwd',
    'secret',
    'csrf',
    'xsrf',
    'totp',
    'api_key',
    'private_key',
    'access_token',
  ],
  /** A key whose last word is one of these: `app_key`, `signingKey`, `x-api-key`. */
  lastWord: ['key', 'keys'],
} as const satisfies Record<string, readonly string[]>

/** A key as the rules compare it: lower-cased, without `-`, `_`, `.` and spaces. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_.\s]/g, '')
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const EXACT: ReadonlySet<string> = new Set(SECRET_KEYS.exact.map(normalizeKey))
const ENDING = new RegExp(`(?:${SECRET_KEYS.endings.map(normalizeKey).map(escape).join('|')})s?$`)
const ANYWHERE = new RegExp(SECRET_KEYS.anywhere.map(normalizeKey).map(escape).join('|'))
const LAST_WORD: ReadonlySet<string> = new Set(SECRET_KEYS.lastWord)

function lastWord(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[-_.\s]+/)
    .filter((w) => w !== '')
  return words[words.length - 1] ?? ''
}

/**
 * True when a key (an object key, a header, a query parameter, a column, a config name) names a
 * secret under the built-in list, or ends with one of `extra` (normalised already; see
 * {@link Redaction.addKeys}).
 *
 * @example
 * isSecretKey('password_hash') // true
 * isSecretKey('token_type')    // false
 */
export function isSecretKey(key: string, extra: readonly string[] = []): boolean {
  const k = normalizeKey(key)
  if (EXACT.has(k) || ENDING.test(k) || ANYWHERE.test(k) || LAST_WORD.has(lastWord(key)))
    return true
  for (const e of extra) if (k.endsWith(e)) return true
  return false
}

const JWT = /^[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/
const BEARER = /^(?:bearer|basic|token)\s+\S+/i
/** Long unbroken high-entropy strings: hashes, API keys, opaque tokens. */
const OPAQUE = /^[A-Za-z0-9+/_=.:-]{40,}$/
/** `scheme://user:password@`: the password part. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s/]*@/gi

/** True when a value looks like a credential whatever its key (a JWT, `Bearer …`, a long hash). */
export function isSecretValue(value: unknown): boolean {
  if (typeof value !== 'string') return false
  if (value.length < 20) return false
  return JWT.test(value) || BEARER.test(value) || (OPAQUE.test(value) && /\d/.test(value))
}

/** A string fit to show: `***` when it looks like a credential, passwords inside URLs masked. */
export function redactString(value: string): string {
  if (isSecretValue(value)) return MASK
  return value.includes('://') ? value.replace(URL_CREDENTIALS, `$1${MASK}@`) : value
}

/** How {@link redact} writes what it does not copy as it is. */
export interface RedactOptions {
  /** Keep an error's `stack` (log lines do; what a browser is shown does not). Default `false`. */
  stack?: boolean
  /** Keys (normalised) masked besides the built-in list. */
  extraKeys?: readonly string[]
}

const MAX_DEPTH = 8

/**
 * A copy of `value` with every secret-named key's value (at any depth) replaced by `***`, every
 * credential-looking string too, and passwords inside URLs masked. Errors become `{name, message,
 * code?, cause?}` (plus `stack` when asked), dates ISO strings, byte arrays `[n bytes]`, bigints
 * strings, objects with `toJSON` what it answers; cycles `'[Circular]'`, nesting deeper than eight
 * levels `'[Object]'`. The caller's objects are never changed.
 *
 * @example
 * redact({ user: 'ann', body: { password: 'hunter2' } }) // { user: 'ann', body: { password: '***' } }
 */
export function redact(value: unknown, options: RedactOptions = {}): unknown {
  return clean(value, 0, new WeakSet(), options)
}

function clean(value: unknown, depth: number, seen: WeakSet<object>, o: RedactOptions): unknown {
  if (typeof value === 'string') return redactString(value)
  if (typeof value === 'bigint') return value.toString()
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`
  if (seen.has(value)) return '[Circular]'
  if (depth >= MAX_DEPTH) return '[Object]'
  seen.add(value)
  let out: unknown
  if (value instanceof Error) out = cleanError(value, depth, seen, o)
  else if (Array.isArray(value)) out = value.map((item) => clean(item, depth + 1, seen, o))
  else {
    const plain = jsonOf(value)
    if (plain !== value) out = clean(plain, depth + 1, seen, o)
    else {
      const copy: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(value))
        copy[key] = isSecretKey(key, o.extraKeys) ? MASK : clean(item, depth + 1, seen, o)
      out = copy
    }
  }
  // Only the path from the root counts: the same object twice side by side is not a cycle.
  seen.delete(value)
  return out
}

/** What an object's `toJSON` answers (what JSON would write), or the object itself. */
function jsonOf(value: object): unknown {
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON !== 'function') return value
  try {
    return toJSON.call(value) as unknown
  } catch {
    return value
  }
}

/** Where {@link maskErrorMessage} keeps an error's reported message (shared by copies of fw). */
const REPORTED = Symbol.for('fw.error.reportedMessage')

/** A URL-encoded component decoded (`+` as a space); one that does not decode stays as it is. */
export function decodeComponent(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '))
  } catch {
    return component
  }
}

/**
 * A query string or form body as sent, each `name=value` pair kept byte for byte unless
 * `secretName(decoded name)` or `isSecretValue(decoded value)`: then its value becomes `***`.
 * `limit` keeps the first pairs only. Telemetry's `url.query` and the toolbar's long form bodies.
 */
export function maskPairs(
  text: string,
  secretName: (name: string) => boolean,
  limit?: number,
): string {
  return text
    .split('&', limit)
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq === -1) return pair
      const secret =
        secretName(decodeComponent(pair.slice(0, eq))) ||
        isSecretValue(decodeComponent(pair.slice(eq + 1)))
      return secret ? `${pair.slice(0, eq)}=${MASK}` : pair
    })
    .join('&')
}

/**
 * A query string as received, except the value of each parameter that `redaction` calls secret (by
 * its name, its innermost `[name]`, or its value), which becomes `***`; `limit` keeps the first
 * parameters only. Telemetry's `url.query` and the logging plugin's access line.
 *
 * @example
 * maskQuery('page=2&user[password]=x', kernel.redaction) // 'page=2&user[password]=***'
 */
export function maskQuery(query: string, redaction: Redaction, limit?: number): string {
  return maskPairs(
    query,
    (name) => {
      const inner = /\[([^[\]]*)\]$/.exec(name)?.[1]
      return redaction.isSecretKey(name) || (inner !== undefined && redaction.isSecretKey(inner))
    },
    limit,
  )
}

/**
 * Gives `error` the message every report shows instead of its own: log lines, the `_debug`
 * payload, error reports, `exception.raised` and what projects it (telemetry's exception events).
 * For an error whose own message quotes values that must not leak: a database driver's inlines the
 * statement with its bound values. Its `cause` is left out of reports too (the message stands for
 * the chain), and its stack keeps only the frames.
 *
 * @example
 * maskErrorMessage(error, 'UniqueConstraintViolationException 23505 (table "users")')
 */
export function maskErrorMessage(error: Error, message: string): void {
  Object.defineProperty(error, REPORTED, { value: message, configurable: true })
}

/** The message reports show for `error`: the one {@link maskErrorMessage} gave it, or its own. */
export function reportedMessage(error: Error): string {
  return (error as { [REPORTED]?: string })[REPORTED] ?? error.message
}

function cleanError(
  error: Error,
  depth: number,
  seen: WeakSet<object>,
  o: RedactOptions,
): Record<string, unknown> {
  const masked = (error as { [REPORTED]?: string })[REPORTED]
  const out: Record<string, unknown> = {
    name: error.name,
    message: redactString(masked ?? error.message),
  }
  if (o.stack === true && error.stack !== undefined)
    out.stack = redactString(
      masked === undefined
        ? error.stack
        : [
            `${error.name}: ${masked}`,
            ...error.stack.split('\n').filter((l) => /^\s+at /.test(l)),
          ].join('\n'),
    )
  const code = (error as { code?: unknown }).code
  if (code !== undefined) out.code = clean(code, depth + 1, seen, o)
  if (error.cause !== undefined && masked === undefined)
    out.cause = clean(error.cause, depth + 1, seen, o)
  return out
}

/**
 * A kernel's redaction: the built-in key list plus the keys plugins added
 * (`kernel.redaction.addKeys(...)`). Log lines, the `_debug` payload, `/health/phpinfo` and error
 * reports of that kernel all mask with it.
 */
export interface Redaction {
  /**
   * Masks keys ending with these too (compared like the built-in list: `pin_code` also masks
   * `pinCode` and `user_pin_code`). Add them in `setup`, before the first request.
   *
   * @example
   * kernel.redaction.addKeys('ssn', 'iban')
   */
  addKeys(...keys: string[]): void
  /** The keys plugins added, as they were given. */
  readonly addedKeys: readonly string[]
  /** {@link isSecretKey} with the added keys. */
  isSecretKey(key: string): boolean
  /** {@link isSecretValue}. */
  isSecretValue(value: unknown): boolean
  /** {@link redact} with the added keys. */
  redact(value: unknown, options?: Omit<RedactOptions, 'extraKeys'>): unknown
}

/** A fresh {@link Redaction} (the kernel makes one; tests and tools may make their own). */
export function createRedaction(): Redaction {
  const added: string[] = []
  const normalised: string[] = []
  return {
    addKeys(...keys) {
      for (const key of keys) {
        const k = normalizeKey(key)
        if (k === '' || normalised.includes(k)) continue
        added.push(key)
        normalised.push(k)
      }
    },
    addedKeys: added,
    isSecretKey: (key) => isSecretKey(key, normalised),
    isSecretValue,
    redact: (value, options = {}) => redact(value, { ...options, extraKeys: normalised }),
  }
}
