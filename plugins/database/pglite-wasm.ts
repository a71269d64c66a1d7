// PGlite's binary, compiled once per process for every embedded database fw opens (in this thread
// or in a worker thread, which receives the compiled module), with a smaller buffer pool.
//
// PGlite 0.3 starts Postgres with `shared_buffers=128MB`, a setting fixed in its binary (no option
// sets it), and its start writes the whole pool: 128 MB of fresh memory touched, the largest part
// of an embedded database's start (bench/pglite-start.ts). The databases fw embeds (development,
// tests, small apps) read far less than that through the pool, and a page the pool does not hold
// is read from the data directory's files, so fw starts Postgres with `shared_buffers=16MB` by
// changing that one setting in the binary's data. A binary without the setting exactly once (another
// PGlite build) is compiled as it is. Guarded by test/plugins/database/pglite-wasm.test.ts.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The setting as PGlite's binary holds it, and its replacement (the same length, NUL-padded). */
const SHIPPED = Buffer.from('shared_buffers=128MB\0')
const EMBEDDED = Buffer.from('shared_buffers=16MB\0\0')

/** The buffer pool of an embedded database, as `show shared_buffers` answers it. */
export const EMBEDDED_SHARED_BUFFERS = '16MB'

/** `bytes` with the buffer-pool setting replaced, when it is there exactly once (in place). */
export function withEmbeddedBufferPool(bytes: Buffer): Buffer {
  const at = bytes.indexOf(SHIPPED)
  if (at !== -1 && bytes.indexOf(SHIPPED, at + 1) === -1) EMBEDDED.copy(bytes, at)
  return bytes
}

/**
 * A compiled WebAssembly module (V8's `WebAssembly.Module`), handed to PGlite and to its thread as
 * it is. fw's TypeScript settings declare no WebAssembly types for Node.js (only the browser's
 * library does), hence the opaque type and the typed global below.
 */
export type CompiledWasm = object

/** V8's `WebAssembly.compile`. */
const wasm = (
  globalThis as unknown as {
    WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledWasm> }
  }
).WebAssembly

let compiled: Promise<CompiledWasm> | undefined

/** PGlite's binary with the embedded buffer pool, compiled once per process. */
export function pgliteWasm(): Promise<CompiledWasm> {
  if (compiled === undefined) {
    compiled = (async () => {
      const file = fileURLToPath(
        new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')),
      )
      return wasm.compile(withEmbeddedBufferPool(await readFile(file)))
    })()
    // A failed read or compile is tried again by the next opening, which reports its own error.
    compiled.catch(() => (compiled = undefined))
  }
  return compiled
}
