// The client's file name, made safe to show and to use as a path segment.
import { extname } from 'node:path'

// eslint-disable-next-line no-control-regex -- control characters are what it removes
const UNSAFE = /[\u0000-\u001f\u007f"*:<>?|]/g

/**
 * The last segment of the name the client sent (after any `/` or `\`), without control or
 * shell-hostile characters, at most 255 bytes' worth of characters; `upload` when nothing is left
 * (`..`, `/`, an empty name). It is never a path: `moveTo(upload.name)` stays in its folder
 * (test/plugins/uploads/upload-paths.test.ts sends `../../etc/passwd` and `..\\x.png`).
 */
export function safeFileName(sent: string): string {
  const last = sent.split(/[/\\]/).pop() ?? ''
  let name = last.replace(UNSAFE, '').trim()
  while (Buffer.byteLength(name) > 255) name = name.slice(0, -1)
  if (name === '' || /^\.+$/.test(name)) return 'upload'
  return name
}

/** The extension of a file name, lower case and without the dot (`''` when it has none). */
export function extensionOf(name: string): string {
  return extname(name).slice(1).toLowerCase()
}
