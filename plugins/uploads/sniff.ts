// The type of a file by its content: file-type reads the magic numbers of some hundred binary
// formats from the first bytes (images, documents, archives, audio, video), the well-kept library
// for it (no native code, no install script). Loaded on the first file, so an app that receives
// none never loads it.
import type { fileTypeFromBuffer as FromBuffer } from 'file-type'

/** How many first bytes a file's type is read from: what file-type needs for its formats. */
export const SNIFF_BYTES = 4100

let detect: Promise<typeof FromBuffer> | undefined

/** The MIME type the bytes start like (`image/png`), or `undefined` when none matches. */
export async function sniffType(head: Uint8Array): Promise<string | undefined> {
  detect ??= import('file-type').then((m) => m.fileTypeFromBuffer)
  try {
    return (await (await detect)(head))?.mime
  } catch {
    // A truncated or hostile header that trips the detector is simply not a known type.
    return undefined
  }
}
