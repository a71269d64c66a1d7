// What a route accepts in a multipart body: the limits and the types, from the rules a handler
// gives over the `uploads.*` config defaults.
import type { FwConfig } from 'fw'

/** What one file must be. */
export interface FileRules {
  /** The largest file, in bytes (default `uploads.max_file_size`, 10 MiB). */
  maxFileSize?: number
  /**
   * The types a file may have, read from its content's first bytes (magic numbers), never from
   * its name or the client's `Content-Type`: `['image/png', 'image/jpeg']`, or `['image/*']`.
   * Content without a recognised signature (plain text, CSV, SVG) matches none. Default: any.
   */
  types?: readonly string[]
  /** The file name extensions accepted, without the dot, any case: `['png', 'jpg']`. Default: any. */
  extensions?: readonly string[]
}

/** What a whole multipart body may hold. */
export interface UploadRules extends FileRules {
  /** The whole body's files and fields together, in bytes (default `uploads.max_total_size`). */
  maxTotalSize?: number
  /** How many files (default `uploads.max_files`, 10). */
  maxFiles?: number
  /** How many plain fields (default `uploads.max_fields`, 100). */
  maxFields?: number
  /** The longest plain field value, in bytes (default `uploads.max_field_size`, 64 KiB). */
  maxFieldSize?: number
  /** The fields that may carry a file; a file in any other is refused (422). Default: any field. */
  fields?: readonly string[]
}

/** Rules with every limit resolved. */
export interface ResolvedRules {
  readonly maxFileSize: number
  readonly maxTotalSize: number
  readonly maxFiles: number
  readonly maxFields: number
  readonly maxFieldSize: number
  readonly types: readonly string[] | undefined
  readonly extensions: ReadonlySet<string> | undefined
  readonly fields: ReadonlySet<string> | undefined
}

/** The rules a call gives, over the config's defaults. */
export function resolveRules(config: FwConfig['uploads'], rules: UploadRules = {}): ResolvedRules {
  return {
    maxFileSize: rules.maxFileSize ?? config.max_file_size,
    maxTotalSize: rules.maxTotalSize ?? config.max_total_size,
    maxFiles: rules.maxFiles ?? config.max_files,
    maxFields: rules.maxFields ?? config.max_fields,
    maxFieldSize: rules.maxFieldSize ?? config.max_field_size,
    types: rules.types?.map((t) => t.toLowerCase()),
    extensions:
      rules.extensions && new Set(rules.extensions.map((e) => e.replace(/^\./, '').toLowerCase())),
    fields: rules.fields && new Set(rules.fields),
  }
}

/** True when `type` is one of `accepted` (`image/*` accepts every `image/…`). */
export function typeAccepted(type: string | undefined, accepted: readonly string[]): boolean {
  if (type === undefined) return false
  for (const a of accepted) {
    if (a === type) return true
    if (a.endsWith('/*') && type.startsWith(a.slice(0, -1))) return true
  }
  return false
}
