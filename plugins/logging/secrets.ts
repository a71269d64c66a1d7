// What counts as a secret in a log line. Two layers, so that one mistake does not leak: every
// context is copied with secret-looking keys masked at any depth (`maskSecrets` in
// log-context.ts), and pino's `redact` masks the documented paths of what reaches it.

/** What a secret is replaced with. */
export const CENSOR = '***'

/**
 * pino `redact` paths masked in every line (listed in the README). `*` is one level of nesting:
 * `*.password` masks `body.password`.
 */
export const REDACT_PATHS: readonly string[] = [
  'password',
  '*.password',
  'passwd',
  '*.passwd',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'accessToken',
  '*.accessToken',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'cookie',
  '*.cookie',
  'headers.cookie',
  '*.headers.cookie',
  'headers["set-cookie"]',
  '*.headers["set-cookie"]',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
  'apikey',
  '*.apikey',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'client_secret',
  '*.client_secret',
]

/**
 * Key endings that mark a secret, compared lower-cased with `-`, `_` and `.` removed: `password`,
 * `Authorization`, `set-cookie`, `x-api-key`, `client_secret`, `csrfToken`, `private_key` all match;
 * `token_type` and `tokenCount` do not.
 */
const SECRET_KEY =
  /(?:password|passwd|passphrase|secret|token|apikey|authorization|cookie|privatekey|sessionid|credentials?)s?$/

/** True when a context key names a secret, at any depth. */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_.\s]/g, '')
  return k === 'pwd' || SECRET_KEY.test(k)
}
