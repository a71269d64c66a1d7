import { definePluginErrors, type CodesOf } from 'fw'

/** The auth plugin's error codes. */
export const authErrors = definePluginErrors('auth', {
  FW_ERR_AUTH_USER_INVALID: {
    when: '`createUser()` (or `fw user:create`) got an empty username, one over 100 characters, an empty password, or a `passwordHash` not made by `hashPassword()`.',
    fix: 'Pass a username of 1 to 100 characters and a password (or a hash from `hashPassword()`).',
    message:
      'createUser() needs a username of 1 to 100 characters and a non-empty password (or a passwordHash from hashPassword()).',
  },
  FW_ERR_AUTH_TOTP_SECRET_WEAK: {
    when: '`createUser()` got a `totpSecret` that is not base32 or holds fewer than 128 bits (26 base32 characters).',
    fix: 'Enrol with `generateTotpSecret()` (160 bits), or give a base32 secret of at least 128 bits.',
    message: ({ bits }: { bits: number | undefined }) =>
      bits === undefined
        ? 'The TOTP secret is not base32 (A–Z, 2–7). Enrol with generateTotpSecret(), which makes a 160-bit secret.'
        : `The TOTP secret holds ${bits} bits; at least 128 are needed (RFC 4226 §4, and authenticator libraries refuse less). Enrol with generateTotpSecret(), which makes a 160-bit secret.`,
  },
  FW_ERR_AUTH_SIGNING_KEY_WEAK: {
    when: 'The server starts (`fw serve`, `fw dev`, `kernel.listen()`) with the `authorization-server` feature and a signing key file (`oauth.private_key` or `oauth.public_key`) holding an RSA key below 2048 bits, which the authorization server will not sign or verify with. Refused at start rather than answering every `POST /api/oauth/token` with 500.',
    fix: 'Replace the pair: `fw keys:generate --force` (2048 bits; `--bits 3072` or `4096` for more). Tokens signed with the old key stop verifying.',
    message: ({ half, file, bits }: { half: 'private' | 'public'; file: string; bits: number }) =>
      `The ${half} signing key ${file} is a ${bits}-bit RSA key; the authorization server signs and verifies only with 2048 bits or more. Replace the pair with 'fw keys:generate --force'.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof authErrors> {}
}
