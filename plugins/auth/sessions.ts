import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { serialize } from 'cookie'
import type { Identity, RequestContext } from 'fw'
import { grantOfRow, nowSeconds, query, read, type AuthRuntime } from './runtime.js'
import { announceRevocation } from './revocations.js'
import { hashToken, type TokenSubject } from './tokens.js'

/** The web session cookie. */
export const SESSION_COOKIE = 'fw_session'

/** The CSRF token of a web session: HMAC-SHA256 of its row id under a key derived from the app key. */
export function csrfTokenOf(rt: AuthRuntime, sessionId: string): string | undefined {
  if (rt.keys === undefined) return undefined
  return createHmac('sha256', rt.keys.csrf).update(`session:${sessionId}`).digest('base64url')
}

/** Constant-time string equality (false for different lengths). */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Opens a web session: a random cookie value, a `web_session` row holding its sha256. Answers the
 * `Set-Cookie` value (HttpOnly, SameSite=Lax, Secure over TLS, a browser-session cookie) and the
 * session's CSRF token.
 */
export async function openWebSession(
  rt: AuthRuntime,
  ctx: RequestContext,
  user: TokenSubject,
): Promise<{ cookie: string; id: string; csrf: string; expires: number }> {
  const value = randomBytes(32).toString('base64url')
  const id = randomUUID()
  const expires = nowSeconds(rt) + rt.sessionTtl
  await query(
    rt,
    'insert into "auth_tokens" ("id", "user_id", "kind", "token_hash", "expires", "revoked", "created_at") values (?, ?, ?, ?, ?, false, ?) returning "id"',
    [id, user.id, 'web_session', hashToken(value), expires, new Date(rt.now())],
  )
  const cookie = serialize(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
  })
  return { cookie, id, csrf: csrfTokenOf(rt, id)!, expires }
}

/**
 * The identity of the request's session cookie (without the CSRF question), or a refusal. One
 * query by the unique `token_hash` index, or a cache hit.
 */
export async function readWebSession(
  rt: AuthRuntime,
  value: string,
): Promise<{ ok: true; identity: Identity } | { ok: false; reason: string }> {
  if (value.length > 100) return { ok: false, reason: 'invalid' }
  const key = `session:${value}`
  const cached = rt.cache.get(key, rt.now())
  if (cached !== undefined) return { ok: true, identity: cached.identity }
  // Read before the row: a revocation evicting meanwhile keeps this result out of the cache.
  const epoch = rt.cache.epoch()
  const readAt = rt.now()
  const rows = await read(
    rt,
    `select t."id" as "token_id", t."expires", t."revoked", u."id", u."username", u."usertype", u."email"
     from "auth_tokens" t join "users" u on u."id" = t."user_id"
     where t."token_hash" = ? and t."kind" = 'web_session'`,
    [hashToken(value)],
  )
  const row = rows[0]
  if (row === undefined) return { ok: false, reason: 'unknown' }
  const grant = grantOfRow(rt, row, 'session', String(row.token_id))
  if (!grant.ok) return grant
  const { identity, expires } = grant
  rt.cache.set(key, { identity, claims: undefined, expires, checkedAt: readAt }, epoch)
  return { ok: true, identity }
}

/** Revokes the session of a cookie value and answers the `Set-Cookie` value that clears it. */
export async function closeWebSession(
  rt: AuthRuntime,
  ctx: RequestContext,
  value: string | undefined,
): Promise<string> {
  if (value !== undefined) {
    rt.cache.delete(`session:${value}`)
    const rows = await query(
      rt,
      `update "auth_tokens" set "revoked" = true where "token_hash" = ? and "kind" = 'web_session' and "revoked" = false returning "id"`,
      [hashToken(value)],
    )
    for (const row of rows) await announceRevocation(rt, String(row.id))
  }
  return serialize(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    maxAge: 0,
  })
}
