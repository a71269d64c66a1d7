import { clearFailures, lockoutKey, releaseAttempt, reserveAttempt } from './lockout.js'
import { verifyDummyPassword, verifyPassword } from './passwords.js'
import type { AuthRuntime } from './runtime.js'
import { acceptTotpStep, consumeBackupCode, matchTotp, unusedBackupCodes } from './second-factor.js'
import { findUserById, findUserByUsername, totpSecretOf, type AuthUser } from './users.js'

/** The second-factor methods a user may use now. */
export type SecondFactorMethod = 'totp' | 'backup_code'

/**
 * What one leg of a sign-in came to, whatever carries it (the JSON API or the web form): the
 * caller turns it into a response and, on `signed-in`, issues the token or opens the session.
 */
export type LoginOutcome =
  | { kind: 'missing' }
  | { kind: 'locked'; retryAfter: number }
  | { kind: 'invalid' }
  | { kind: 'second-factor'; user: AuthUser; methods: SecondFactorMethod[] }
  | { kind: 'signed-in'; user: AuthUser }

/** A body field as a string: anything else (an object, a number, an array) counts as absent. */
export function field(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ''
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

/**
 * The password leg: empty fields (no attempt counted), the attempt's lockout slot (reserved, that
 * is counted as a failure, before anything is checked: see `reserveAttempt`), then the password,
 * verified against a dummy hash for an unknown user so that both take the same time and answer
 * the same. A wrong password needs nothing more (it is counted already); a sign-in clears the
 * count; a correct first leg of a two-factor user gives its slot back (neither clears nor adds).
 */
export async function passwordLeg(
  rt: AuthRuntime,
  username: string,
  password: string,
): Promise<LoginOutcome> {
  if (username.trim() === '' || password === '') return { kind: 'missing' }
  const key = lockoutKey(username)
  const slot = await reserveAttempt(rt, key)
  if (slot.kind === 'locked') return slot
  const user = await findUserByUsername(rt, username.trim())
  const ok = user
    ? await verifyPassword(password, user.password_hash)
    : await verifyDummyPassword(password)
  if (!ok || user === undefined) return { kind: 'invalid' }
  if (user.totp_secret !== null) {
    // A correct first leg of a two-factor user neither clears the count nor adds to it (README.md
    // "Flows", Lockout): only a completed sign-in clears it.
    await releaseAttempt(rt, slot)
    const methods: SecondFactorMethod[] = ['totp']
    if ((await unusedBackupCodes(rt, user.id)) > 0) methods.push('backup_code')
    return { kind: 'second-factor', user, methods }
  }
  await clearFailures(rt, key)
  return { kind: 'signed-in', user }
}

/**
 * The code leg of a pending login: empty code (no attempt spent), no pending login (invalid),
 * the attempt's lockout slot (reserved before the code is checked, as in `passwordLeg`), then a
 * TOTP code (replays refused) or a backup code (single use). A wrong code stays counted toward the
 * lockout and leaves the pending login as it is.
 */
export async function codeLeg(
  rt: AuthRuntime,
  pendingUserId: number | undefined,
  rawCode: string,
): Promise<LoginOutcome> {
  const code = rawCode.trim()
  if (code === '') return { kind: 'missing' }
  if (pendingUserId === undefined) return { kind: 'invalid' }
  const user = await findUserById(rt, pendingUserId)
  if (user === undefined) return { kind: 'invalid' }
  const key = lockoutKey(user.username)
  const slot = await reserveAttempt(rt, key)
  if (slot.kind === 'locked') return slot
  let ok: boolean
  const secret = totpSecretOf(rt, user)
  if (/^\d{6}$/.test(code)) {
    const step = secret === undefined ? undefined : matchTotp(secret, code, rt.now())
    ok = step !== undefined && (await acceptTotpStep(rt, user.id, step))
  } else {
    ok = await consumeBackupCode(rt, user.id, code)
  }
  if (!ok) return { kind: 'invalid' } // counted by the reservation
  await clearFailures(rt, key)
  return { kind: 'signed-in', user }
}
