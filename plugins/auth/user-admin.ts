// Account administration outside a request: what `fw user:password` and `fw user:list` do.
import { authErrors } from './errors.js'
import { hashPassword } from './passwords.js'
import { announceRevocation } from './revocations.js'
import { query, type AuthRuntime } from './runtime.js'

/** A user as `listUsers()` answers it: no password hash, no TOTP secret. */
export interface ListedUser {
  readonly id: number
  readonly username: string
  readonly email: string
  readonly usertype: number
  /** Whether signing in takes a second factor (a TOTP secret is set). */
  readonly twoFactor: boolean
  /** ISO 8601. */
  readonly createdAt: string
}

/** Every user, by id. */
export async function listUsers(rt: AuthRuntime): Promise<ListedUser[]> {
  const rows = await query(
    rt,
    'select "id", "username", "email", "usertype", "totp_secret" is not null as "two_factor", "created_at" from "users" order by "id"',
    [],
  )
  return rows.map((row) => ({
    id: Number(row.id),
    username: String(row.username),
    email: String(row.email),
    usertype: Number(row.usertype),
    twoFactor: row.two_factor === true,
    createdAt: new Date(row.created_at as string | Date).toISOString(),
  }))
}

/**
 * Replaces a user's password (the same rule as `createUser()`: not empty) and revokes every token
 * and web session the user holds, and their pending two-factor logins, in one transaction; each
 * revoked token is then announced to the running instances (`revocations.ts`). Answers how many
 * tokens were revoked, or undefined for an unknown username.
 */
export async function setPassword(
  rt: AuthRuntime,
  username: string,
  password: string,
): Promise<{ revoked: number } | undefined> {
  if (password === '') throw authErrors.error('FW_ERR_AUTH_USER_INVALID')
  const hash = await hashPassword(password)
  const revoked = await rt.db.em().transactional(async (em) => {
    const [user] = await query(
      rt,
      'update "users" set "password_hash" = ? where lower("username") = lower(?) returning "id"',
      [hash, username.trim()],
      em,
    )
    if (user === undefined) return undefined
    await query(rt, 'delete from "auth_pending_logins" where "user_id" = ?', [user.id], em)
    const tokens = await query(
      rt,
      'update "auth_tokens" set "revoked" = true where "user_id" = ? and "revoked" = false returning "id"',
      [user.id],
      em,
    )
    return tokens.map((t) => String(t.id))
  })
  if (revoked === undefined) return undefined
  for (const id of revoked) await announceRevocation(rt, id)
  return { revoked: revoked.length }
}
