import type { IncomingMessage } from 'node:http'

/** {@link readFraming}: the request names its host twice. */
export const TWO_HOSTS = 1
/** {@link readFraming}: the request declares a body (`Content-Length` other than 0, or `Transfer-Encoding`). */
export const BODY = 2

/**
 * What the request's framing headers say, in one pass over the raw header list (the parser has
 * built it already: a few string comparisons, no header object):
 *
 * - {@link TWO_HOSTS}: a proxy and the app could each pick a different host (Node keeps the first
 *   in `req.headers`), so HTTP/1.1 requires a 400.
 * - {@link BODY}: a request has a body only when it says so with one of these two headers (RFC
 *   9112 §6.3); without them there are no bytes after the head.
 */
export function readFraming(raw: readonly string[]): number {
  let flags = 0
  let hosts = 0
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    if (isName(name, 'host')) {
      if (++hosts === 2) flags |= TWO_HOSTS
    } else if (isName(name, 'content-length')) {
      if (raw[i + 1] !== '0') flags |= BODY
    } else if (isName(name, 'transfer-encoding')) flags |= BODY
  }
  return flags
}

/**
 * True when `name` is `lower` in any casing, compared in place (`toLowerCase` would copy the name).
 * `lower` is lower-case letters and `-` only.
 */
function isName(name: string, lower: string): boolean {
  if (name.length !== lower.length) return false
  for (let i = 0; i < name.length; i++) {
    if ((name.charCodeAt(i) | 0x20) !== lower.charCodeAt(i)) return false
  }
  return true
}

/**
 * Tells Node that a request without a body has nothing to drain. After every response Node "dumps"
 * a request nobody read, so that its remaining body bytes are pulled off the keep-alive socket:
 * it resumes the request stream, which then flows, ends and is destroyed, over several ticks and
 * events. For a request that declared no body there are no bytes to pull, and that cascade was
 * a sixth to a fifth of what Node itself spends on a small GET (`bench/tools/count-instructions.mjs`
 * counts it). `_dumped` is the flag Node's `IncomingMessage` sets when it starts dumping; set now, the
 * dump is skipped and body bytes, should any arrive, would be dropped (as a dump drops them). The
 * request stream can still be read (it ends at once); it just does not emit `end` and `close` by
 * itself after the response. A Node without the field is left alone.
 */
export function nothingToDrain(req: IncomingMessage): void {
  const dumped = req as IncomingMessage & { _dumped?: boolean }
  if (dumped._dumped === false) dumped._dumped = true
}
