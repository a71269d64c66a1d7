import { randomBytes } from 'node:crypto'
import { serialize } from 'cookie'
import type { RequestContext } from 'fw'
import { query, type AuthRuntime } from './runtime.js'
import { hashToken } from './tokens.js'

/** The cookie that ties a pending second factor to the browser or client that passed the first leg. */
export const PENDING_COOKIE = 'fw_2fa'
/** How long a pending login waits for its code. */
export const PENDING_SECONDS = 300

/**
 * Opens a pending login for a user and answers the `Set-Cookie` value. The row's id is the
 * sha256 of the cookie's random value: a database reader cannot complete someone's pending login.
 */
export async function openPendingLogin(
  rt: AuthRuntime,
  ctx: RequestContext,
  userId: number,
): Promise<string> {
  const value = randomBytes(32).toString('base64url')
  const now = rt.now()
  // Expired rows are deleted on the way: the table holds only live pending logins (and a few).
  await query(rt, 'delete from "auth_pending_logins" where "expires_at" < ? returning "id"', [now])
  await query(
    rt,
    'insert into "auth_pending_logins" ("id", "user_id", "expires_at") values (?, ?, ?) returning "id"',
    [hashToken(value), userId, now + PENDING_SECONDS * 1000],
  )
  return serialize(PENDING_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    maxAge: PENDING_SECONDS,
  })
}

/** The user id of the request's live pending login, or undefined. */
export async function pendingUserId(
  rt: AuthRuntime,
  ctx: RequestContext,
): Promise<number | undefined> {
  const value = ctx.cookies[PENDING_COOKIE]
  if (value === undefined || value === '' || value.length > 100) return undefined
  const rows = await query(
    rt,
    'select "user_id" from "auth_pending_logins" where "id" = ? and "expires_at" > ?',
    [hashToken(value), rt.now()],
  )
  return rows[0] === undefined ? undefined : Number(rows[0].user_id)
}

/** Ends the request's pending login (it was completed) and answers the cookie that clears it. */
export async function closePendingLogin(rt: AuthRuntime, ctx: RequestContext): Promise<string> {
  const value = ctx.cookies[PENDING_COOKIE]
  if (value !== undefined)
    await query(rt, 'delete from "auth_pending_logins" where "id" = ? returning "id"', [
      hashToken(value),
    ])
  return serialize(PENDING_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    maxAge: 0,
  })
}
