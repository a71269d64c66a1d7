// Reads one multipart/form-data body with @fastify/busboy, each file streamed to a temporary file
// as it arrives: memory holds a chunk or two per file, never a file (test/plugins/uploads/
// upload-memory.test.ts streams 200 MB and watches the RSS).
import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { unlink } from 'node:fs/promises'
import type { IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { once } from 'node:events'
import { finished } from 'node:stream/promises'
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy'
import { HttpError, type BodySource, type EventLog } from 'fw'
import { uploadsErrors } from './errors.js'
import { extensionOf, safeFileName } from './file-name.js'
import { typeAccepted, type ResolvedRules } from './rules.js'
import { SNIFF_BYTES, sniffType } from './sniff.js'
import { UploadedFile, type FileOwner } from './uploaded-file.js'

/** A multipart body, read: its files (in the order they came) and its plain fields. */
export interface Uploads {
  readonly files: readonly UploadedFile[]
  /** Plain fields by name; a name sent more than once has its values in an array. */
  readonly fields: Readonly<Record<string, string | string[]>>
}

/** What a read needs besides the body. */
export interface ReadOptions {
  readonly rules: ResolvedRules
  /** Where temporary files go (`uploads.tmp_dir`, existing). */
  readonly tmpDir: string
  readonly dir: string
  readonly log: EventLog
}

/** A request stream as Node's `IncomingMessage` is one. */
type RequestStream = Readable & { readonly complete?: boolean }

const tooLarge = (field: string, what: string, limit: number): HttpError =>
  uploadsErrors.httpError('FW_ERR_UPLOADS_TOO_LARGE', { field, what, limit }, { body: { field } })
const tooMany = (field: string, what: string, limit: number): HttpError =>
  uploadsErrors.httpError('FW_ERR_UPLOADS_TOO_MANY', { field, what, limit }, { body: { field } })
const refused = (field: string, reason: string): HttpError =>
  uploadsErrors.httpError('FW_ERR_UPLOADS_REFUSED', { field, reason }, { body: { field } })
const malformed = (problem: string, cause?: unknown): HttpError =>
  uploadsErrors.httpError('FW_ERR_UPLOADS_MALFORMED', { problem }, { cause })

/**
 * One request's multipart body on its way to disk. `result` settles once every file is whole
 * (or at the first problem, after the files written so far are removed); `dispose()`, when the
 * request ends, stops a read still going and removes every temporary file not moved.
 *
 * A refusal stops reading at once: the request stream is unpiped and paused, as the kernel's own
 * body limit leaves it, so the server closes the connection after the answer instead of reading
 * the rest (test/plugins/uploads/upload-limits.test.ts, over a socket).
 */
export class MultipartRead implements FileOwner {
  readonly result: Promise<Uploads>
  readonly dir: string
  readonly #options: ReadOptions
  readonly #files: UploadedFile[] = []
  readonly #fields: Record<string, string | string[]> = Object.create(null) as Record<string, never>
  /** Temporary files not moved: removed when the read fails or the request ends. */
  readonly #temp = new Set<string>()
  /** Files being written; each settles (its write stream closed) whatever happens. */
  readonly #writing = new Set<Promise<void>>()
  readonly #streams = new Set<BusboyFileStream>()
  readonly #abort = new AbortController()
  #failure: HttpError | undefined
  #current: string | undefined
  #fileCount = 0
  #fieldCount = 0
  #total = 0
  #settle!: { resolve: (u: Uploads) => void; reject: (e: unknown) => void }
  #stop: () => void = () => undefined
  #settled = false

  constructor(source: BodySource, headers: IncomingHttpHeaders, options: ReadOptions) {
    this.#options = options
    this.dir = options.dir
    this.result = new Promise<Uploads>((resolve, reject) => (this.#settle = { resolve, reject }))
    // Whoever awaits gets the failure; a handler that never awaits must not crash the process.
    this.result.catch(() => undefined)
    try {
      this.#start(source, headers)
    } catch (error) {
      void this.#fail(error instanceof HttpError ? error : malformed('has no boundary', error))
    }
  }

  moved(tempPath: string): void {
    this.#temp.delete(tempPath)
  }

  /** Stops a read still going (the request ended without waiting for it) and removes the files. */
  async dispose(): Promise<void> {
    if (!this.#settled) await this.#fail(malformed('was not read to its end'))
    await this.#removeTemp()
  }

  #start(source: BodySource, headers: IncomingHttpHeaders): void {
    const { rules } = this.#options
    const declared = Number(headers['content-length'])
    if (Number.isFinite(declared) && declared > rules.maxTotalSize)
      throw tooLarge('', 'body', rules.maxTotalSize)
    const parser: BusboyInstance = Busboy({
      headers: headers as IncomingHttpHeaders & { 'content-type': string },
      limits: { fieldSize: rules.maxFieldSize, fileSize: Infinity, files: Infinity },
    })
    parser.on('file', this.#onFile)
    parser.on('field', this.#onField)
    parser.on('error', (error: unknown) => void this.#fail(malformed('is malformed', error)))
    parser.on('finish', () => void this.#finish())
    if (source === undefined || typeof source === 'string' || source instanceof Uint8Array) {
      const bytes = Buffer.from(source ?? '')
      if (!this.#count(bytes.length)) return
      parser.end(bytes)
      return
    }
    const stream: RequestStream =
      source instanceof Readable ? source : Readable.from(source, { objectMode: false })
    this.#feed(stream, parser)
  }

  /** Pipes the request into the parser, counting its bytes; a request that breaks off fails. */
  #feed(stream: RequestStream, parser: BusboyInstance): void {
    const onData = (chunk: Buffer): void => void this.#count(chunk.length)
    const onBroken = (): void => {
      if (!stream.readableEnded && stream.complete !== true)
        void this.#fail(malformed('ended before it was complete'))
    }
    // Piped first: the parser has seen a chunk's part heads when it is counted, so a total passed
    // names the part it was passed in.
    stream.pipe(parser)
    stream.on('data', onData)
    stream.on('error', onBroken)
    stream.on('close', onBroken)
    this.#stop = () => {
      stream.off('data', onData)
      stream.off('close', onBroken)
      stream.unpipe(parser)
      stream.pause()
      parser.removeAllListeners('file')
      parser.removeAllListeners('field')
      parser.on('error', () => undefined)
    }
  }

  /** Adds body bytes to the total; false (and the read failing) once they pass the limit. */
  #count(bytes: number): boolean {
    this.#total += bytes
    const limit = this.#options.rules.maxTotalSize
    if (this.#total <= limit) return true
    void this.#fail(tooLarge(this.#current ?? '', 'body', limit))
    return false
  }

  readonly #onFile = (
    field: string,
    stream: BusboyFileStream,
    sentName: string,
    _encoding: string,
    declaredType: string,
  ): void => {
    const { rules } = this.#options
    stream.on('error', () => undefined)
    this.#current = field
    // A file input left empty comes as a part with no file name and no bytes.
    if (this.#failure !== undefined || sentName === '') return void stream.resume()
    if (rules.fields !== undefined && !rules.fields.has(field))
      return void this.#fail(refused(field, 'is in a field this route does not take'))
    if (++this.#fileCount > rules.maxFiles)
      return void this.#fail(tooMany(field, 'files', rules.maxFiles))
    const name = safeFileName(sentName)
    const extension = extensionOf(name)
    if (rules.extensions !== undefined && !rules.extensions.has(extension))
      return void this.#fail(
        refused(field, `has a name ending in ${extension === '' ? 'no extension' : `.${extension}`}`),
      )
    this.#streams.add(stream)
    // The failure is not awaited here: `#fail` waits for every write, this one included.
    const writing = this.#receive(field, stream, name, declaredType, this.#fileCount - 1).then(
      () => void this.#streams.delete(stream),
      (error: unknown) =>
        void this.#fail(error instanceof HttpError ? error : malformed('is malformed', error)),
    )
    this.#writing.add(writing)
  }

  readonly #onField = (field: string, value: string, _n: boolean, truncated: boolean): void => {
    const { rules } = this.#options
    this.#current = field
    if (this.#failure !== undefined) return
    if (++this.#fieldCount > rules.maxFields)
      return void this.#fail(tooMany(field, 'fields', rules.maxFields))
    if (truncated) return void this.#fail(tooLarge(field, 'field', rules.maxFieldSize))
    const had = this.#fields[field]
    this.#fields[field] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value]
  }

  /** Writes one file to its temporary file; its first bytes decide its type before any is written. */
  async #receive(
    field: string,
    stream: BusboyFileStream,
    name: string,
    declared: string,
    index: number,
  ): Promise<void> {
    const { rules, tmpDir, log } = this.#options
    const started = log.now()
    const path = join(tmpDir, `${randomUUID()}.upload`)
    this.#temp.add(path)
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 })
    const signal = this.#abort.signal
    let head: Buffer[] | undefined = []
    let size = 0
    let type: string | undefined
    const write = async (chunk: Buffer): Promise<void> => {
      if (!out.write(chunk)) await once(out, 'drain', { signal })
    }
    const decide = async (): Promise<Buffer> => {
      const bytes = Buffer.concat(head!)
      head = undefined
      type = await sniffType(bytes.subarray(0, SNIFF_BYTES))
      if (rules.types !== undefined && !typeAccepted(type, rules.types))
        throw refused(field, `is ${type === undefined ? 'of no accepted type' : type}, not ${rules.types.join(' or ')}`)
      return bytes
    }
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length
        if (size > rules.maxFileSize) throw tooLarge(field, 'file', rules.maxFileSize)
        if (head === undefined) await write(chunk)
        else if (head.push(chunk) && size >= SNIFF_BYTES) await write(await decide())
      }
      if (head !== undefined) await write(await decide())
      out.end()
      await finished(out)
    } catch (error) {
      out.destroy()
      await finished(out).catch(() => undefined)
      throw error
    }
    const file = new UploadedFile({ field, name, size, type, declaredType: declared, path }, this)
    // In the order the files came, whichever finished writing first.
    this.#files[index] = file
    const duration = log.now() - started
    log.record('upload.received', { field, name, size, type, declared_type: declared, duration })
  }

  async #finish(): Promise<void> {
    while (this.#writing.size > 0) {
      const pending = [...this.#writing]
      this.#writing.clear()
      await Promise.all(pending)
    }
    if (this.#failure !== undefined || this.#settled) return
    this.#settled = true
    this.#settle.resolve({ files: this.#files, fields: this.#fields })
  }

  /** The first problem wins: reading stops, every write ends, the files go, then the rejection. */
  async #fail(error: HttpError): Promise<void> {
    if (this.#failure !== undefined || this.#settled) return
    this.#failure = error
    this.#settled = true
    this.#stop()
    this.#abort.abort()
    for (const s of this.#streams) s.destroy()
    this.#options.log.record('upload.refused', {
      field: (error.body.field as string | undefined) || undefined,
      code: error.code ?? 'FW_ERR_UPLOADS_MALFORMED',
      status: error.status,
    })
    await Promise.allSettled([...this.#writing])
    await this.#removeTemp()
    this.#settle.reject(error)
  }

  async #removeTemp(): Promise<void> {
    const paths = [...this.#temp]
    this.#temp.clear()
    await Promise.all(paths.map((p) => unlink(p).catch(() => undefined)))
  }
}
