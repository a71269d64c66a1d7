import { createRequire } from 'node:module'
import type QsModule from 'qs'

let qs: typeof QsModule | undefined

/**
 * `qs.parse`, with qs loaded on the first query string or form body parsed: loading it (≈20 ms,
 * a dozen CommonJS modules) is not the cost of every `fw` command that boots the app.
 */
export function parseQs(text: string, options: QsModule.IParseOptions): unknown {
  qs ??= createRequire(import.meta.url)('qs') as typeof QsModule
  return qs.parse(text, options)
}
