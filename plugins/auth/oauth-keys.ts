// The authorization server's RS256 signing keys: where they live, writing a pair
// (`fw keys:generate`), and reading them back for signing and verifying.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Kernel } from 'fw'
import { authErrors } from './errors.js'

/**
 * The smallest RSA modulus the authorization server signs or verifies with (NIST SP 800-131A);
 * the `signing_keys` health check and the start check use the same figure.
 */
export const MIN_KEY_BITS = 2048

/** RSA modulus sizes `fw keys:generate --bits` accepts. */
export const KEY_BITS = [2048, 3072, 4096] as const
export type KeyBits = (typeof KEY_BITS)[number]

/** Absolute paths of the key pair. */
export interface SigningKeyPaths {
  readonly privateKey: string
  readonly publicKey: string
}

/**
 * The configured key paths (`oauth.private_key`, `oauth.public_key`; default `var/keys/private.key`
 * and `var/keys/public.key`), resolved against the app root when relative.
 */
export function signingKeyPaths(kernel: Kernel): SigningKeyPaths {
  const { private_key, public_key } = kernel.config.oauth
  return {
    privateKey: resolve(kernel.root, private_key),
    publicKey: resolve(kernel.root, public_key),
  }
}

/** Why {@link writeSigningKeys} wrote nothing. */
export class SigningKeysExist extends Error {
  readonly paths: readonly string[]
  constructor(paths: readonly string[]) {
    super(`signing keys exist: ${paths.join(', ')}`)
    this.paths = paths
  }
}

/**
 * Generates an RSA key pair (PKCS#8 private, SPKI public, PEM) and writes it: the private key with
 * mode 0600, the public key 0644, their directories created (0700 for a new one). Refuses with
 * {@link SigningKeysExist} when either file exists, unless `force`.
 */
export function writeSigningKeys(
  paths: SigningKeyPaths,
  options: { bits?: KeyBits; force?: boolean } = {},
): void {
  const existing = [paths.privateKey, paths.publicKey].filter((p) => existsSync(p))
  if (existing.length > 0 && options.force !== true) throw new SigningKeysExist(existing)
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: options.bits ?? 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  for (const file of [paths.privateKey, paths.publicKey])
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  // `mode` applies only when the file is created: chmod too, for an overwritten one.
  writeFileSync(paths.privateKey, privateKey, { mode: 0o600 })
  chmodSync(paths.privateKey, 0o600)
  writeFileSync(paths.publicKey, publicKey, { mode: 0o644 })
  chmodSync(paths.publicKey, 0o644)
}

/** Thrown when a key cannot be used; `message` names the file and the reason (never key material). */
export class SigningKeyError extends Error {}

interface Loaded {
  readonly stamp: string
  readonly mode: number
  readonly key: KeyObject
}

function statOf(file: string): { stamp: string; mode: number } {
  const s = statSync(file)
  if (!s.isFile()) throw new SigningKeyError(`${file} is not a file`)
  return { stamp: `${s.ino}:${s.size}:${s.mtimeMs}:${s.mode}`, mode: s.mode & 0o777 }
}

/**
 * Reads the key pair on demand and keeps the parsed keys until a file changes (one `stat` per use),
 * so `fw keys:generate --force` takes effect without a restart and a key generated after the start
 * is picked up. Every failure is a {@link SigningKeyError}.
 */
export class SigningKeyStore {
  readonly paths: SigningKeyPaths
  #private: Loaded | undefined
  #public: Loaded | undefined
  #pairChecked: string | undefined
  readonly #warn: (message: string) => void

  /** `warn` hears once per file version that the private key is readable by group or others. */
  constructor(paths: SigningKeyPaths, warn: (message: string) => void = () => {}) {
    this.paths = paths
    this.#warn = warn
  }

  #load(file: string, cached: Loaded | undefined, kind: 'private' | 'public'): Loaded {
    let stamp: string
    let mode: number
    try {
      ;({ stamp, mode } = statOf(file))
    } catch (error) {
      if (error instanceof SigningKeyError) throw error
      throw new SigningKeyError(`the ${kind} key ${file} is missing or unreadable`)
    }
    if (cached?.stamp === stamp) return cached
    let pem: string
    try {
      pem = readFileSync(file, 'utf8')
    } catch {
      throw new SigningKeyError(`the ${kind} key ${file} is unreadable`)
    }
    let key: KeyObject
    try {
      key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem)
    } catch {
      throw new SigningKeyError(`the ${kind} key ${file} is not a valid PEM key`)
    }
    if (key.asymmetricKeyType !== 'rsa')
      throw new SigningKeyError(`the ${kind} key ${file} is not an RSA key`)
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_KEY_BITS)
      throw new SigningKeyError(`the ${kind} key ${file} is shorter than ${MIN_KEY_BITS} bits`)
    if (kind === 'private' && (mode & 0o077) !== 0 && process.platform !== 'win32')
      this.#warn(
        `the private key ${file} has mode ${mode.toString(8).padStart(4, '0')}: readable beyond its owner (chmod 600 it)`,
      )
    return { stamp, mode, key }
  }

  /** The public key (RS256 verification). */
  publicKey(): KeyObject {
    this.#public = this.#load(this.paths.publicKey, this.#public, 'public')
    return this.#public.key
  }

  /** The private key (RS256 signing), checked to belong to the public key. */
  privateKey(): KeyObject {
    this.#private = this.#load(this.paths.privateKey, this.#private, 'private')
    const pub = this.publicKey()
    const pair = `${this.#private.stamp}|${this.#public!.stamp}`
    if (this.#pairChecked !== pair) {
      const derived = createPublicKey(this.#private.key).export({ type: 'spki', format: 'der' })
      if (!derived.equals(pub.export({ type: 'spki', format: 'der' })))
        throw new SigningKeyError(
          `the private key ${this.paths.privateKey} and the public key ${this.paths.publicKey} are not one pair`,
        )
      this.#pairChecked = pair
    }
    return this.#private.key
  }
}

/**
 * Throws `FW_ERR_AUTH_SIGNING_KEY_WEAK` (naming the file and its size) when a key file of the pair
 * holds an RSA key below {@link MIN_KEY_BITS}: run when the server starts, so that such a pair stops
 * the start instead of failing every token request. A missing or unreadable file is left to the
 * `signing_keys` health check and the token endpoint (a pair may be generated after the start).
 * Guarded by test/plugins/auth/oauth-weak-keys.test.ts.
 */
export function refuseWeakKeys(paths: SigningKeyPaths): void {
  const halves = [
    ['private', paths.privateKey],
    ['public', paths.publicKey],
  ] as const
  for (const [half, file] of halves) {
    let key: KeyObject
    try {
      const pem = readFileSync(file, 'utf8')
      key = half === 'private' ? createPrivateKey(pem) : createPublicKey(pem)
    } catch {
      continue
    }
    const bits = key.asymmetricKeyDetails?.modulusLength
    if (key.asymmetricKeyType === 'rsa' && bits !== undefined && bits < MIN_KEY_BITS)
      throw authErrors.error('FW_ERR_AUTH_SIGNING_KEY_WEAK', { half, file, bits })
  }
}
