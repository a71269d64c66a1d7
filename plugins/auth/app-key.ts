import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * Keys derived from the application key (`app.key`, `FW_APP_KEY`) with HKDF-SHA256, one per use,
 * so that a token signature, an encrypted TOTP secret and a CSRF token never share key material
 * with each other or with the debug grant (which HMACs with the application key itself). The key
 * string is the input keying material as it is (UTF-8), whatever its format (`base64:…` or not):
 * HKDF does not need it to be uniform.
 */
export interface DerivedKeys {
  /** HS256 key of access tokens. */
  readonly jwt: Buffer
  /** AES-256-GCM key of TOTP secrets at rest. */
  readonly totp: Buffer
  /** HMAC key that turns a web session's id into its CSRF token. */
  readonly csrf: Buffer
}

const SALT = Buffer.from('fw.auth.v1')

/**
 * The application key when none is set, in development mode only (`fw dev`, the playground, a new
 * app): sign-in works with nothing set. It is public, so it never signs when `NODE_ENV=production`
 * (test/plugins/auth/development-key.test.ts).
 */
export const DEVELOPMENT_APP_KEY = 'base64:Znctb25seS1mb3ItZGV2ZWxvcG1lbnQtbm90LWEtc2VjcmV0'

/**
 * The key the app signs with: `app.key` (`FW_APP_KEY`) when set; else {@link DEVELOPMENT_APP_KEY}
 * in development mode outside production; else none (nothing is signed).
 */
export function signingAppKey(
  app: { readonly key: string | undefined; readonly env: string | undefined },
  development: boolean,
): string | undefined {
  if (app.key !== undefined && app.key !== '') return app.key
  return development && app.env !== 'production' ? DEVELOPMENT_APP_KEY : undefined
}

function derive(appKey: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(appKey, 'utf8'), SALT, info, 32))
}

/** The keys of one application key; `undefined` when there is none (no token can be issued). */
export function deriveKeys(appKey: string | undefined): DerivedKeys | undefined {
  if (appKey === undefined || appKey === '') return undefined
  return {
    jwt: derive(appKey, 'jwt-hs256'),
    totp: derive(appKey, 'totp-secret-aes-256-gcm'),
    csrf: derive(appKey, 'csrf-hmac-sha256'),
  }
}

const VERSION = 'v1'

/**
 * Encrypts a TOTP secret with AES-256-GCM under a random 96-bit IV:
 * `v1.<iv>.<ciphertext>.<tag>` (base64url). No associated data: whoever can rewrite a user's row
 * can rewrite the password hash too, and binding the username would break on a rename.
 */
export function sealSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [VERSION, iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.')
}

/** Decrypts what {@link sealSecret} produced; `undefined` when it was tampered with or the key differs. */
export function openSecret(key: Buffer, sealed: string): string | undefined {
  const parts = sealed.split('.')
  if (parts.length !== 4 || parts[0] !== VERSION) return undefined
  const [iv, body, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
  ]
  if (iv.length !== 12 || tag.length !== 16) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAuthTag(tag)
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}
