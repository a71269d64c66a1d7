// What counts as a secret in a log line: the kernel's one rule (docs/redaction.md). Two layers, so
// that one mistake does not leak: every context is copied with secret-looking keys and values
// masked at any depth (`toLogContext` in log-context.ts, live: keys a plugin adds later count),
// and pino's `redact` masks the paths built here from the same key list when the logger is made.
import { MASK, SECRET_KEYS } from 'fw'

/** What a secret is replaced with (the kernel's `MASK`). */
export const CENSOR = MASK

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const camel = (key: string): string =>
  key.replace(/[-_.]+([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/**
 * pino `redact` paths from the kernel's key list: its ending names (as written, and in camelCase:
 * `api_key`, `apiKey`) and `extra` keys at the top and one level down (`*.password` masks
 * `body.password`); its exact names (`code`, `key`) at the top only, so that a serialised error's
 * own `code` stays readable.
 *
 * @example
 * redactPaths(['ssn']) // [..., 'ssn', '*.ssn']
 */
export function redactPaths(extra: readonly string[] = []): string[] {
  const names = (keys: readonly string[]): Set<string> => {
    const out = new Set<string>()
    for (const key of keys)
      for (const name of [key, camel(key)]) if (IDENTIFIER.test(name)) out.add(name)
    return out
  }
  const paths: string[] = [...names(SECRET_KEYS.exact)]
  for (const name of names([...SECRET_KEYS.endings, ...extra])) paths.push(name, `*.${name}`)
  return paths
}
