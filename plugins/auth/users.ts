import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { authErrors } from './errors.js'
import { openSecret, sealSecret } from './app-key.js'
import { hashPassword } from './passwords.js'
import { query, type AuthRuntime, type Row } from './runtime.js'
import { MIN_TOTP_SECRET_BITS, totpSecretBits } from './second-factor.js'

/** What {@link createUser} takes. */
export interface NewUser {
  username: string
  /** The password in clear, hashed here (scrypt, ~50 ms); or give `passwordHash`. */
  password?: string
  /**
   * The password already hashed with `hashPassword()`: a seed creating several users hashes their
   * passwords at once (scrypt runs on the thread pool) and still creates them in order.
   */
  passwordHash?: string
  email: string
  /** Default 1. */
  usertype?: number
  /** A base32 TOTP secret: the user then signs in with a second factor. Needs the application key. */
  totpSecret?: string | null
}

/** A user as the auth plugin reads it for a sign-in. */
export interface AuthUser {
  id: number
  username: string
  email: string
  usertype: number
  password_hash: string
  /** The sealed TOTP secret, or null. */
  totp_secret: string | null
}

/** The `user` object of a login success response, `{id, username, email}` (README.md "Flows"). */
export function publicUser(user: { id: number; username: string; email: string }): {
  id: number
  username: string
  email: string
} {
  return { id: user.id, username: user.username, email: user.email }
}

function toAuthUser(row: Row): AuthUser {
  return {
    id: Number(row.id),
    username: String(row.username),
    email: String(row.email),
    usertype: Number(row.usertype),
    password_hash: String(row.password_hash),
    totp_secret: row.totp_secret === null ? null : String(row.totp_secret),
  }
}

/** The user of a username, case-insensitively (through the `lower(username)` unique index). */
export const findUserByUsername = (rt: AuthRuntime, username: string, em?: EntityManager) =>
  findUserWhere(rt, 'lower("username") = lower(?)', username, em)

/** The user of an id. */
export const findUserById = (rt: AuthRuntime, id: number, em?: EntityManager) =>
  findUserWhere(rt, '"id" = ?', id, em)

/** The one user `condition` (one `?`, bound to `value`) selects, if any. */
async function findUserWhere(
  rt: AuthRuntime,
  condition: string,
  value: string | number,
  em: EntityManager | undefined,
): Promise<AuthUser | undefined> {
  const rows = await query(
    rt,
    `select "id", "username", "email", "usertype", "password_hash", "totp_secret" from "users" where ${condition}`,
    [value],
    em,
  )
  return rows[0] === undefined ? undefined : toAuthUser(rows[0])
}

/** The plain TOTP secret of a user, or undefined (none, no key, or a seal that does not open). */
/** Stored in `totp_secret` for a user created with a TOTP secret while there was no application key. */
export const TOTP_PENDING_SEAL = 'pending-seal'

/**
 * Seals the TOTP secret of a user created without an application key (its `totp_secret` is
 * {@link TOTP_PENDING_SEAL}); a user whose secret is already sealed is left alone. Returns whether
 * it wrote.
 */
export async function sealPendingTotp(
  rt: AuthRuntime,
  username: string,
  secret: string,
  em?: EntityManager,
): Promise<boolean> {
  if (rt.keys === undefined) return false
  const sealed = sealSecret(rt.keys.totp, secret.replace(/\s+/g, '').toUpperCase())
  const rows = await query(
    rt,
    'update "users" set "totp_secret" = ? where lower("username") = lower(?) and "totp_secret" = ? returning "id"',
    [sealed, username.trim(), TOTP_PENDING_SEAL],
    em,
  )
  return rows.length > 0
}

export function totpSecretOf(rt: AuthRuntime, user: AuthUser): string | undefined {
  if (user.totp_secret === null || rt.keys === undefined) return undefined
  return openSecret(rt.keys.totp, user.totp_secret)
}

/**
 * Creates a user: the password hashed with scrypt, the TOTP secret sealed under the application
 * key. Fails with `FW_ERR_AUTH_USER_INVALID` on an empty username or password (or a `passwordHash`
 * that is not one of `hashPassword()`'s). Without an
 * application key a TOTP secret is not kept: the user is marked {@link TOTP_PENDING_SEAL} (a second
 * factor is required, and none succeeds) until `sealPendingTotp()` stores it under a key.
 */
export async function createUser(
  rt: AuthRuntime,
  input: NewUser,
  em?: EntityManager,
): Promise<Omit<AuthUser, 'password_hash' | 'totp_secret'>> {
  const username = input.username.trim()
  const hashed = input.passwordHash
  if (
    username === '' ||
    username.length > 100 ||
    (hashed === undefined ? !input.password : !hashed.startsWith('scrypt$'))
  ) {
    throw authErrors.error('FW_ERR_AUTH_USER_INVALID')
  }
  let sealed: string | null = null
  if (input.totpSecret) {
    const bits = totpSecretBits(input.totpSecret)
    if (bits === undefined || bits < MIN_TOTP_SECRET_BITS)
      throw authErrors.error('FW_ERR_AUTH_TOTP_SECRET_WEAK', { bits })
    // Without an application key the secret cannot be sealed, and is not kept: the user still
    // needs a second factor (no sign-in succeeds until sealPendingTotp() stores the secret once a
    // key exists; without a key no token can be issued anyway).
    sealed =
      rt.keys === undefined
        ? TOTP_PENDING_SEAL
        : sealSecret(rt.keys.totp, input.totpSecret.replace(/\s+/g, '').toUpperCase())
  }
  const rows = await query(
    rt,
    'insert into "users" ("username", "email", "password_hash", "usertype", "totp_secret", "created_at") values (?, ?, ?, ?, ?, ?) returning "id"',
    [
      username,
      input.email,
      hashed ?? (await hashPassword(input.password!)),
      input.usertype ?? 1,
      sealed,
      new Date(rt.now()),
    ],
    em,
  )
  return {
    id: Number(rows[0]!.id),
    username,
    email: input.email,
    usertype: input.usertype ?? 1,
  }
}
