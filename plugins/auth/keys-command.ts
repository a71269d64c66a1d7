import { Command, Option } from 'clipanion'
import type { CommandContext } from 'fw'
import {
  KEY_BITS,
  SigningKeysExist,
  signingKeyPaths,
  writeSigningKeys,
  type KeyBits,
} from './oauth-keys.js'

/** `fw keys:generate [--bits 2048|3072|4096] [--force]`: the authorization server's RS256 key pair. */
export class KeysGenerateCommand extends Command<CommandContext> {
  static override paths = [['keys:generate']]
  static override usage = Command.Usage({
    category: 'Security',
    description: 'Generate the RS256 signing keys of the authorization server',
    details: `
      Generates an RSA key pair and writes it where config \`oauth.private_key\` and \`oauth.public_key\` point (default \`var/keys/private.key\` and \`var/keys/public.key\` under the app root): the private key as PKCS#8 PEM with mode 0600, the public key as SPKI PEM. Prints the paths, never the private key.

      Existing keys are kept unless \`--force\`; replacing them invalidates every access token the authorization server issued (refresh tokens stay valid).
    `,
    examples: [
      ['Write a 2048-bit pair', '$0 keys:generate'],
      ['Replace the pair with a 4096-bit one', '$0 keys:generate --bits 4096 --force'],
    ],
  })

  bits = Option.String('--bits', '2048', { description: 'RSA modulus size: 2048, 3072 or 4096' })
  force = Option.Boolean('--force', false, { description: 'Overwrite existing keys' })

  async execute(): Promise<number> {
    const { kernel, stdout, stderr } = this.context
    const bits = Number(this.bits)
    if (!(KEY_BITS as readonly number[]).includes(bits)) {
      stderr.write(`fw: --bits must be one of ${KEY_BITS.join(', ')}, got '${this.bits}'.\n`)
      return 1
    }
    const paths = signingKeyPaths(kernel)
    try {
      writeSigningKeys(paths, { bits: bits as KeyBits, force: this.force })
    } catch (error) {
      if (!(error instanceof SigningKeysExist)) throw error
      stderr.write(
        `fw: signing keys already exist (${error.paths.join(', ')}); use --force to replace them.\n`,
      )
      return 1
    }
    stdout.write(
      `Wrote an RSA ${bits}-bit key pair:\n  private key ${paths.privateKey} (mode 0600)\n  public key  ${paths.publicKey}\n`,
    )
    return 0
  }
}
