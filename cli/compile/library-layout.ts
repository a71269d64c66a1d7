// What the compiled library's build and its reader agree on: the manifest's format and layout,
// the two modes fw runs in, and fw's package root.
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageRoot } from '../prefer-compiled.js'
import type { Stamp } from './stamps.js'

/** The manifest's layout: a manifest of another is not read (the next run compiles anew). */
export const FORMAT = 1

/** How fw runs: from its TypeScript sources (`fw-source` condition) or built (`dist/`). */
export type LibraryMode = 'source' | 'dist'

/** What a compile made, in `manifest.json` beside its builds. */
export interface Manifest {
  readonly format: typeof FORMAT
  /** The folder of the compiled modules, beside the manifest; absent when the compile failed. */
  readonly build?: string
  readonly stamps: Stamp[]
  /** Module relative to fw's root → its compiled module relative to the build's folder. */
  readonly entries: Record<string, string>
  /** When the compile that failed started (ms): a file changed since is compiled again. */
  readonly failedAt?: number
}

/** fw's package root: this file is `cli/compile/library-layout.ts` in it, or `dist/cli/compile/library-layout.js`. */
export const root = packageRoot(dirname(fileURLToPath(import.meta.url)))!
