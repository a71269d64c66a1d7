import { createHash, randomBytes } from 'node:crypto'
import type * as OtpAuth from 'otpauth'
import { requireOptional } from 'fw'
import { query, type AuthRuntime } from './runtime.js'

let loaded: typeof OtpAuth | undefined
/**
 * otpauth, loaded on the first secret made or code checked: a command that boots the app (`fw
 * route:list`) never needs it.
 */
function otpauth(): typeof OtpAuth {
  return (loaded ??= requireOptional<typeof OtpAuth>(
    'otpauth',
    "the auth plugin's second factor (TOTP)",
  ))
}

/** TOTP (README.md "Flows"): RFC 6238, SHA-1, 6 digits, 30 s steps, ±1 step accepted. */
const PERIOD = 30
const WINDOW = 1
/** How many backup codes a user gets. */
export const BACKUP_CODE_COUNT = 10

/** The shortest TOTP secret accepted, in bits (RFC 4226 §4; authenticator libraries refuse less). */
export const MIN_TOTP_SECRET_BITS = 128
/** The size of a secret {@link generateTotpSecret} makes, in bits (RFC 4226's recommended 160). */
export const TOTP_SECRET_BITS = 160

/**
 * A new TOTP secret for enrolment: 160 random bits from the CSPRNG, base32 (32 characters), as
 * an authenticator app takes it.
 */
export function generateTotpSecret(): string {
  return new (otpauth().Secret)({ size: TOTP_SECRET_BITS / 8 }).base32
}

/** The bits of a base32 secret (spaces ignored), or undefined when it is not base32. */
export function totpSecretBits(secretBase32: string): number | undefined {
  const text = secretBase32.replace(/\s+/g, '').toUpperCase().replace(/=+$/, '')
  if (!/^[A-Z2-7]+$/.test(text)) return undefined
  return Math.floor((text.length * 5) / 8) * 8
}

/**
 * The time step a TOTP code matches (within ±1 step of `nowMs`), or undefined. Only the check:
 * {@link acceptTotpStep} refuses a replay.
 */
export function matchTotp(secretBase32: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined
  const { Secret, TOTP } = otpauth()
  let totp: OtpAuth.TOTP
  try {
    totp = new TOTP({
      secret: Secret.fromBase32(secretBase32),
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD,
    })
  } catch {
    return undefined
  }
  const delta = totp.validate({ token: code, timestamp: nowMs, window: WINDOW })
  return delta === null ? undefined : Math.floor(nowMs / 1000 / PERIOD) + delta
}

/**
 * Records `step` as the user's last accepted TOTP step, only when it is later than the last one:
 * a code of a step at or before it is a replay. One conditional update, so two instances racing
 * with the same code cannot both win. Answers whether the step was accepted.
 */
export async function acceptTotpStep(
  rt: AuthRuntime,
  userId: number,
  step: number,
): Promise<boolean> {
  const rows = await query(
    rt,
    'update "users" set "totp_last_step" = ? where "id" = ? and ("totp_last_step" is null or "totp_last_step" < ?) returning "id"',
    [step, userId, step],
  )
  return rows.length === 1
}

/** A backup code as typed: spaces and dashes dropped, lower case. */
function normalizeBackupCode(code: string): string {
  return code.replace(/[\s-]+/g, '').toLowerCase()
}

function hashBackupCode(code: string): string {
  return createHash('sha256').update(normalizeBackupCode(code), 'utf8').digest('hex')
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789' // 32 symbols, no 0/o, 1/l

/**
 * A random backup code: 16 symbols of 5 bits (80 bits), `xxxx-xxxx-xxxx-xxxx`. At 80 bits an
 * unsalted sha256 is as safe to store as an API key's: nobody can enumerate the space.
 */
function newBackupCode(): string {
  const bytes = randomBytes(16)
  let out = ''
  for (let i = 0; i < 16; i++) {
    out += ALPHABET[bytes[i]! & 31]
    if (i % 4 === 3 && i < 15) out += '-'
  }
  return out
}

/**
 * Replaces a user's backup codes with {@link BACKUP_CODE_COUNT} new ones and answers them in
 * clear: the only time they exist outside the user's hands (only their sha256 is stored).
 */
export async function generateBackupCodes(rt: AuthRuntime, userId: number): Promise<string[]> {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode)
  await rt.db.em().transactional(async (em) => {
    await query(
      rt,
      'delete from "auth_backup_codes" where "user_id" = ? returning "id"',
      [userId],
      em,
    )
    await query(
      rt,
      `insert into "auth_backup_codes" ("user_id", "code_hash") values ${codes.map(() => '(?, ?)').join(', ')} returning "id"`,
      codes.flatMap((c) => [userId, hashBackupCode(c)]),
      em,
    )
  })
  return codes
}

/** How many unused backup codes a user has. */
export async function unusedBackupCodes(rt: AuthRuntime, userId: number): Promise<number> {
  const rows = await query(
    rt,
    'select count(*) as "n" from "auth_backup_codes" where "user_id" = ? and "used_at" is null',
    [userId],
  )
  return Number(rows[0]?.n ?? 0)
}

/** Spends a backup code: answers true once per code (a conditional update, race-safe). */
export async function consumeBackupCode(
  rt: AuthRuntime,
  userId: number,
  code: string,
): Promise<boolean> {
  const normalized = normalizeBackupCode(code)
  if (!/^[a-z0-9]{16}$/.test(normalized)) return false
  const rows = await query(
    rt,
    'update "auth_backup_codes" set "used_at" = ? where "user_id" = ? and "code_hash" = ? and "used_at" is null returning "id"',
    [new Date(rt.now()), userId, hashBackupCode(normalized)],
  )
  return rows.length === 1
}
