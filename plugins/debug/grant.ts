// The debug-access grant (README.md "Grant tokens"): `<expiry>.<hmac>`, expiry in Unix seconds,
// hmac = lowercase hex HMAC-SHA256 of the expiry string under `debug_token_secret`, else the
// application key. No secret: nothing is ever granted, and there is no fallback.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FwConfig } from 'fw'

/** The grant cookie. */
export const GRANT_COOKIE = 'fw_debug'
/** Shortest lifetime issued, in seconds. */
export const MIN_TTL = 60
/** Longest lifetime issued or accepted, in seconds (12 h). */
export const MAX_TTL = 12 * 3600
/** Lifetime when none is asked for, in seconds (1 h). */
export const DEFAULT_TTL = 3600

const TOKEN = /^(\d{1,12})\.([0-9a-f]{64})$/

/** The signing secret: `debug_token_secret` when set, else the application key, else none. */
export function grantSecret(config: FwConfig): string | undefined {
  const secret = config.debug_token_secret
  if (typeof secret === 'string' && secret !== '') return secret
  const key = config.app.key
  return typeof key === 'string' && key !== '' ? key : undefined
}

function sign(expiry: string, secret: string): string {
  return createHmac('sha256', secret).update(expiry).digest('hex')
}

/** A token valid for `ttl` seconds (clamped into 60 s … 12 h) from `now` (Unix ms). */
export function issueGrantToken(
  secret: string,
  ttl: number = DEFAULT_TTL,
  now: number = Date.now(),
): { token: string; expires: number; ttl: number } {
  const seconds = Math.min(MAX_TTL, Math.max(MIN_TTL, Math.floor(ttl)))
  const expires = Math.floor(now / 1000) + seconds
  return { token: `${expires}.${sign(String(expires), secret)}`, expires, ttl: seconds }
}

/**
 * The expiry (Unix seconds) of a token that verifies under `secret` and is neither expired nor
 * more than 12 h ahead; `undefined` otherwise. The signature is compared in constant time.
 */
export function verifyGrantToken(
  token: string | undefined,
  secret: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (secret === undefined || token === undefined || token.length > 100) return undefined
  const m = TOKEN.exec(token)
  if (m === null) return undefined
  const expected = Buffer.from(sign(m[1]!, secret), 'hex')
  const given = Buffer.from(m[2]!, 'hex')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  const expires = Number(m[1])
  const nowSeconds = now / 1000
  if (expires <= nowSeconds || expires - nowSeconds > MAX_TTL) return undefined
  return expires
}

/** The `Set-Cookie` value that holds a grant until it expires. */
export function grantCookie(token: string, expires: number, secure: boolean): string {
  const when = new Date(expires * 1000).toUTCString()
  return `${GRANT_COOKIE}=${token}; Path=/; Expires=${when}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

/** The `Set-Cookie` value that ends a grant. */
export function clearGrantCookie(secure: boolean): string {
  return `${GRANT_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

/**
 * Parses a `--ttl` value: `90`, `90s`, `30m`, `2h`, `1d`. Answers seconds, or `undefined` for
 * any other form.
 */
export function parseTtl(value: string): number | undefined {
  const m = /^(\d{1,9})([smhd]?)$/.exec(value.trim())
  if (m === null) return undefined
  const n = Number(m[1])
  const unit = m[2] === 'm' ? 60 : m[2] === 'h' ? 3600 : m[2] === 'd' ? 86400 : 1
  return n * unit
}
