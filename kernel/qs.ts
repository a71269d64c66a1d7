import { parse, type IParseOptions } from 'qs-esm'

/**
 * qs's `parse` (through qs-esm, qs without the polyfill packages it pulls in: 19 fewer packages
 * in an app's `node_modules`, and a few ES modules to load instead of a dozen CommonJS ones).
 * A flat string (`page=2&per_page=20`: no brackets, escapes, repeated or prototype keys) is split
 * here instead, to the object qs would build: qs spends about 10 µs on what a loop does in well
 * under one (a request reading `?queries=20`).
 */
export function parseQs(text: string, options: IParseOptions): unknown {
  const flat = onlyLimits(options) ? parseFlat(text, options.parameterLimit ?? 1000) : undefined
  return flat ?? parse(text, options)
}

/** The options that leave a flat string's meaning alone (qs's others can change it). */
const LIMITS = new Set(['depth', 'arrayLimit', 'parameterLimit'])

function onlyLimits(options: IParseOptions): boolean {
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
