import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/** scrypt cost parameters of new hashes: N = 2^14, r = 8, p = 1 (about 16 MiB, ~50 ms). */
const COST = { N: 16384, r: 8, p: 1 } as const
const SALT_BYTES = 16
const KEY_BYTES = 64
/**
 * The largest cost a stored hash may ask for: a hash is data, and a tampered row must not make a
 * sign-in burn gigabytes. Room for a later increase of N (2^17, 128 MiB) without a format change.
 */
const MAX_MEMORY = 256 * 1024 * 1024

function derive(
  password: string,
  salt: Buffer,
  keylen: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keylen, options, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

/**
 * Hashes a password with scrypt under a random 16-byte salt, as
 * `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`; the parameters travel with the hash, so a later
 * increase of the cost leaves existing hashes verifiable.
 *
 * @example
 * const stored = await hashPassword('admin-pass') // 'scrypt$16384$8$1$…$…'
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, KEY_BYTES, { ...COST, maxmem: MAX_MEMORY })
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join(
    '$',
  )
}

/**
 * True when `password` matches a hash made by {@link hashPassword}; compares in constant time.
 * A malformed hash, or one asking for an unreasonable cost, is simply no match.
 *
 * @example
 * if (!(await verifyPassword(body.password, user.password_hash))) throw new HttpError(401, 'invalid_credentials')
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map((v) => (/^\d{1,10}$/.test(v!) ? Number(v) : NaN)) as [
    number,
    number,
    number,
  ]
  const salt = Buffer.from(parts[4]!, 'base64')
  const expected = Buffer.from(parts[5]!, 'base64')
  // Memory (128·N·r bytes) bounded first, so N is small enough for the bitwise power-of-two test;
  // then a salt and a key of sane length.
  if (!(N > 1 && r >= 1 && p >= 1 && p <= 16 && 128 * N * r <= MAX_MEMORY / 2)) return false
  if ((N & (N - 1)) !== 0 || salt.length < 8 || expected.length < 16 || expected.length > 128)
    return false
  const actual = await derive(password, salt, expected.length, { N, r, p, maxmem: MAX_MEMORY })
  return timingSafeEqual(actual, expected)
}

let dummy: Promise<string> | undefined

/**
 * Spends the time of one {@link verifyPassword} against a hash of a random password and answers
 * false: called for an unknown user, so that an unknown username and a wrong password take about
 * as long and answer the same (no username enumeration by timing).
 */
export async function verifyDummyPassword(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(18).toString('base64'))
  await verifyPassword(password, await dummy)
  return false
}
