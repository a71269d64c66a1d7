import { createPrivateKey, createPublicKey, sign, verify, KeyObject } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import { messageOf, type Kernel } from 'fw'
import type { HealthCheck, HealthResult, HealthStatus } from 'fw/plugins/health'
import { MIN_KEY_BITS } from './oauth-keys.js'

function result(
  status: HealthStatus,
  name: string,
  message: string,
  details: Record<string, unknown>,
): HealthResult {
  return { status, name, message, details }
}

/** Options of {@link signingKeysCheck}. */
export interface SigningKeysOptions {
  /** The private key's path; relative paths are under the app root. Default config `oauth.private_key`. */
  privateKey?: string
  /** The public key's path; relative paths are under the app root. Default config `oauth.public_key`. */
  publicKey?: string
  /**
   * Loads the library the authorization server signs with; a rejection means it is missing
   * (`down`). Default: imports `jsonwebtoken`.
   */
  library?: () => Promise<unknown>
}

const NAME = 'signing_keys'
const CONSTANT = Buffer.from('fw signing_keys health check')

type Half = 'private' | 'public'

/** Reads one key file; a result when it is missing, a directory or unreadable. */
async function readKey(half: Half, path: string): Promise<Buffer | HealthResult> {
  const details = { [`${half}_key`]: path }
  try {
    const s = await stat(path)
    if (s.isDirectory())
      return result('down', NAME, `${half} key path is a directory: ${path}`, details)
    return await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return result('down', NAME, `${half} key file missing: ${path}`, details)
    return result(
      'down',
      NAME,
      `${half} key file unreadable: ${path} (${code ?? messageOf(error)})`,
      details,
    )
  }
}

function parseKey(half: Half, pem: Buffer, path: string): KeyObject | HealthResult {
  try {
    return half === 'private' ? createPrivateKey(pem) : createPublicKey(pem)
  } catch (error) {
    return result('down', NAME, `${half} key file unparseable: ${path} (${messageOf(error)})`, {
      [`${half}_key`]: path,
    })
  }
}

/**
 * `signing_keys`: the authorization server's key pair, registered with the health plugin by the
 * auth plugin when both are there and the `authorization-server` feature is on (the health plugin's
 * README.md "Built-in checks"). `down` when OpenSSL or the signing library is missing, a file is
 * missing, unreadable, a directory or unparseable (the message names which half), or the two keys
 * are not a pair (a constant signed with the private key does not verify with the public one),
 * or an RSA pair is below 2048 bits (the token endpoint cannot sign with it; the server refuses to
 * start with one: `FW_ERR_AUTH_SIGNING_KEY_WEAK`); `ok` with `bits` otherwise.
 */
export function signingKeysCheck(kernel: Kernel, options: SigningKeysOptions = {}): HealthCheck {
  const under = (p: string): string => (isAbsolute(p) ? p : resolve(kernel.root, p))
  const library = options.library ?? (() => import('jsonwebtoken'))
  return {
    name: NAME,
    async run() {
      const privatePath = under(options.privateKey ?? kernel.config.oauth.private_key)
      const publicPath = under(options.publicKey ?? kernel.config.oauth.public_key)
      const paths = { private_key: privatePath, public_key: publicPath }
      if (!process.versions.openssl)
        return result('down', NAME, 'this Node.js runs without OpenSSL', paths)
      try {
        await library()
      } catch (error) {
        return result('down', NAME, `the signing library is missing: ${messageOf(error)}`, paths)
      }
      const privatePem = await readKey('private', privatePath)
      if (!Buffer.isBuffer(privatePem)) return privatePem
      const publicPem = await readKey('public', publicPath)
      if (!Buffer.isBuffer(publicPem)) return publicPem
      const privateKey = parseKey('private', privatePem, privatePath)
      if (!(privateKey instanceof KeyObject)) return privateKey
      const publicKey = parseKey('public', publicPem, publicPath)
      if (!(publicKey instanceof KeyObject)) return publicKey
      const type = privateKey.asymmetricKeyType
      const digest = type === 'ed25519' || type === 'ed448' ? null : 'sha256'
      let matches: boolean
      try {
        matches = verify(digest, CONSTANT, publicKey, sign(digest, CONSTANT, privateKey))
      } catch {
        matches = false
      }
      if (!matches)
        return result(
          'down',
          NAME,
          'the private and public keys are not a pair (a signed constant did not verify)',
          paths,
        )
      const bits = privateKey.asymmetricKeyDetails?.modulusLength
      if (bits === undefined)
        return result('ok', NAME, `matching ${type} key pair`, { ...paths, type })
      const details = { ...paths, type, bits }
      if (bits < MIN_KEY_BITS)
        return result(
          'down',
          NAME,
          `matching ${type} key pair of ${bits} bits: the authorization server signs only with ${MIN_KEY_BITS} or more (fw keys:generate --force)`,
          details,
        )
      return result('ok', NAME, `matching ${type} key pair of ${bits} bits`, details)
    },
  }
}
