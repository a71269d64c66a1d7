// One file of a multipart body onto disk, as its bytes arrive: the parser's file stream is paused
// while the disk is behind (the write stream's backpressure reaches the socket through it), and its
// first bytes decide its type before any byte is written.
import { createWriteStream } from 'node:fs'
import type { Readable } from 'node:stream'
import type { HttpError } from 'fw'
import { typeAccepted } from './rules.js'
import { SNIFF_BYTES, type DetectType } from './libraries.js'

/** What a written file turned out to be. */
export interface Written {
  readonly size: number
  /** The type its first bytes read as; `undefined` when no signature matched. */
  readonly type: string | undefined
}

/** What the write checks, and the refusals it throws. */
export interface WriteChecks {
  readonly maxFileSize: number
  readonly types: readonly string[] | undefined
  readonly tooLarge: () => HttpError
  readonly wrongType: (type: string | undefined) => HttpError
  /** Aborted when the whole read failed: the write stops and its file is closed. */
  readonly signal: AbortSignal
  readonly detect: DetectType
}

/**
 * Writes `stream` to a new file at `path` (created, never replaced; readable by this user only).
 * Resolves once the file is whole and closed; rejects at the first problem (a limit, a refused
 * type, a broken stream, the read aborted) once the file is closed, so the caller can remove it.
 * Plain events rather than `for await`, which costs a promise per chunk (bench/uploads.ts
 * measures the CPU per MB).
 */
export function writeUpload(stream: Readable, path: string, checks: WriteChecks): Promise<Written> {
  return new Promise<Written>((resolve, reject) => {
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 })
    let head: Buffer[] | undefined = []
    let size = 0
    let type: string | undefined
    let failed = false
    const fail = (error: unknown): void => {
      if (failed) return
      failed = true
      stream.off('data', onData)
      stream.pause()
      checks.signal.removeEventListener('abort', onAbort)
      out.once('close', () => reject(error))
      out.destroy()
    }
    const onAbort = (): void => fail(checks.signal.reason)
    /** The type of the first bytes, checked; then those bytes, to be written. */
    const decide = async (): Promise<Buffer> => {
      const bytes = Buffer.concat(head!)
      head = undefined
      type = await checks.detect(bytes.subarray(0, SNIFF_BYTES))
      if (checks.types !== undefined && !typeAccepted(type, checks.types))
        throw checks.wrongType(type)
      return bytes
    }
    const write = (chunk: Buffer): void => {
      if (out.write(chunk)) return
      stream.pause()
      out.once('drain', () => failed || stream.resume())
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > checks.maxFileSize) return fail(checks.tooLarge())
      if (head === undefined) return write(chunk)
      head.push(chunk)
      if (size < SNIFF_BYTES) return
      stream.pause()
      decide().then((bytes) => {
        if (failed) return
        write(bytes)
        if (!out.writableNeedDrain) stream.resume()
      }, fail)
    }
    const onEnd = (): void => {
      if (failed) return
      if (head === undefined) return void out.end()
      decide().then((bytes) => failed || out.end(bytes), fail)
    }
    if (checks.signal.aborted) return fail(checks.signal.reason)
    checks.signal.addEventListener('abort', onAbort, { once: true })
    stream.on('data', onData)
    stream.once('end', onEnd)
    stream.once('error', fail)
    out.once('error', fail)
    out.once('close', () => {
      checks.signal.removeEventListener('abort', onAbort)
      if (!failed) resolve({ size, type })
    })
  })
}
