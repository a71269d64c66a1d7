// The two libraries the uploads plugin reads bodies with, optional peer dependencies of fw (an app
// that takes no upload installs neither): @fastify/busboy, the maintained fork of busboy, parses
// multipart/form-data as a stream; file-type reads a file's type from its magic numbers (some
// hundred binary formats, no native code). Loaded on the first upload; a missing one fails that
// upload with FW_ERR_PACKAGE_MISSING naming it (test/plugins/uploads/upload-optional.test.ts).
import { importOptional } from 'fw'
import type { BusboyConstructor } from '@fastify/busboy'
import type { fileTypeFromBuffer } from 'file-type'

/** The type of the first bytes of a file (`image/png`), or `undefined` when none matched. */
export type DetectType = (head: Uint8Array) => Promise<string | undefined>

/** What a multipart read needs from the libraries. */
export interface Libraries {
  readonly Busboy: BusboyConstructor
  readonly detect: DetectType
}

let loading: Promise<Libraries> | undefined

/** Both libraries, loaded once per process. */
export function loadLibraries(): Promise<Libraries> {
  loading ??= (async () => {
    const feature = 'the uploads plugin'
    const [busboy, fileType] = await Promise.all([
      importOptional<{ Busboy: BusboyConstructor }>('@fastify/busboy', feature),
      importOptional<{ fileTypeFromBuffer: typeof fileTypeFromBuffer }>('file-type', feature),
    ])
    const detect: DetectType = async (head) => {
      try {
        return (await fileType.fileTypeFromBuffer(head))?.mime
      } catch {
        // A truncated or hostile header that trips the detector is simply not a known type.
        return undefined
      }
    }
    return { Busboy: busboy.Busboy, detect }
  })()
  // A failed load is tried again on the next upload (the package may be installed by then).
  loading.catch(() => (loading = undefined))
  return loading
}

/** How many first bytes a file's type is read from: what file-type needs for its formats. */
export const SNIFF_BYTES = 4100
