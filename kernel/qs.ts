import { createRequire } from 'node:module'
import type QsModule from 'qs'

let qs: typeof QsModule | undefined

/**
 * `qs.parse`, with qs loaded on the first query string or form body that needs it: loading it
 * (≈20 ms, a dozen CommonJS modules) is not the cost of every `fw` command that boots the app.
 * A flat string (`page=2&per_page=20`: no brackets, escapes, repeated or prototype keys) is split
 * here instead, to the object qs would build: qs spends about 10 µs on what a loop does in well
 * under one (a request reading `?queries=20`).
 */
export function parseQs(text: string, options: QsModule.IParseOptions): unknown {
  const flat = onlyLimits(options) ? parseFlat(text, options.parameterLimit ?? 1000) : undefined
  if (flat !== undefined) return flat
  qs ??= createRequire(import.meta.url)('qs') as typeof QsModule
  return qs.parse(text, options)
}

/** The options that leave a flat string's meaning alone (qs's others can change it). */
const LIMITS = new Set(['depth', 'arrayLimit', 'parameterLimit'])

function onlyLimits(options: QsModule.IParseOptions): boolean {
  for (const name in options) if (!LIMITS.has(name)) return false
  return true
}

/** Characters that mean the same to qs as written: no `%`/`+` to decode, no `[`/`]`, no `=`/`&`. */
const PLAIN = /^[A-Za-z0-9_.~-]*$/
const hasOwn = Object.prototype.hasOwnProperty

/**
 * `key=value&key=value` as qs parses it when every key and value is {@link PLAIN}, keys are
 * distinct, none is empty or a property of `Object.prototype` (qs drops those), and there are no
 * more than `limit` of them; otherwise undefined (qs decides).
 */
function parseFlat(text: string, limit: number): Record<string, string> | undefined {
  const result: Record<string, string> = {}
  let count = 0
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('&', start)
    if (end === -1) end = text.length
    const eq = text.indexOf('=', start)
    const hasValue = eq !== -1 && eq < end
    const key = text.slice(start, hasValue ? eq : end)
    const value = hasValue ? text.slice(eq + 1, end) : ''
    if (
      key === '' ||
      ++count > limit ||
      !PLAIN.test(key) ||
      !PLAIN.test(value) ||
      hasOwn.call(result, key) ||
      hasOwn.call(Object.prototype, key)
    )
      return undefined
    result[key] = value
    start = end + 1
  }
  return result
}
