import type { Middleware } from 'fw'
import { failure } from './errors.js'

/**
 * What no username or email may hold: control characters (`\t`, `\n`, NUL), format characters
 * (zero-width spaces and joiners, bidi overrides), surrogates, private-use and unassigned code
 * points, the other default-ignorable ones (Hangul fillers, variation selectors) and line or
 * paragraph separators. Each would make two names look alike that are not.
 */
const INVISIBLE = /[\p{C}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u

/**
 * Scripts whose letters pass for one another's (Cyrillic `а`, Greek `ο`, Armenian `օ`, Cherokee
 * `Ꭺ` for Latin `a`, `o`, `o`, `A`). A username mixing letters of two of them is the classic
 * look-alike of another name (UTS #39's mixed-script confusables), so it is refused; a username
 * wholly in any one script is fine.
 */
const LOOK_ALIKE_SCRIPTS = ['Latin', 'Greek', 'Cyrillic', 'Armenian', 'Cherokee'].map(
  (script) => new RegExp(`\\p{Script=${script}}`, 'u'),
)

/** True when `name` holds letters of more than one of {@link LOOK_ALIKE_SCRIPTS}. */
export function mixesLookAlikeScripts(name: string): boolean {
  let seen = 0
  for (const script of LOOK_ALIKE_SCRIPTS) if (script.test(name) && ++seen > 1) return true
  return false
}

/**
 * A name as it is stored and compared: NFKC (a fullwidth `ａｌｉｃｅ` is `alice`, `ﬁ` is `fi`),
 * then trimmed. Case is compared by the database (`lower()`, the unique indexes).
 */
export function normalizeName(value: string): string {
  return value.normalize('NFKC').trim()
}

/**
 * The `conduit.names` middleware, before a route's body schema is checked: `user.username` and
 * `user.email` of the body become {@link normalizeName}'s form (so the schema's `minLength`,
 * `maxLength` and `format` judge what will be stored: `"   "` is empty, a 101-character username too
 * long), and one holding an {@link INVISIBLE} character, or a username mixing look-alike scripts,
 * answers 422.
 */
export const normalizeNames: Middleware = async (ctx, next) => {
  const body = await ctx.body<{ user?: unknown } | null>()
  const user = typeof body === 'object' && body !== null ? body.user : undefined
  if (typeof user !== 'object' || user === null) return next()
  const fields = user as Record<string, unknown>
  const problems: string[] = []
  for (const field of ['username', 'email']) {
    const value = fields[field]
    if (typeof value !== 'string') continue
    fields[field] = normalizeName(value)
    if (INVISIBLE.test(fields[field] as string))
      problems.push(`The user.${field} must not hold invisible or control characters.`)
    else if (field === 'username' && mixesLookAlikeScripts(fields[field] as string))
      problems.push(
        'The user.username must not mix Latin, Greek, Cyrillic, Armenian or Cherokee letters.',
      )
  }
  if (problems.length > 0) throw failure(422, ...problems)
  return next()
}
