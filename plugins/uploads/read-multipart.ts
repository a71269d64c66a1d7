// Reads one multipart/form-data body with @fastify/busboy, each file streamed to a temporary file
// as it arrives: memory holds a chunk or two per file, never a file (test/plugins/uploads/
// upload-streaming.test.ts streams 200 MB and watches the RSS).
import { randomUUID } from 'node:crypto'
import { unlink } from 'node:fs/promises'
import type { IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import type { BusboyFileStream, BusboyInstance } from '@fastify/busboy'
import { HttpError, type BodySource, type EventLog } from 'fw'
import { uploadsErrors } from './errors.js'
import { extensionOf, safeFileName } from './file-name.js'
import type { Libraries } from './libraries.js'
import type { ResolvedRules } from './rules.js'
import { UploadedFile, type FileOwner, type Uploads } from './uploaded-file.js'
import { writeUpload } from './write-file.js'

/** What a read needs besides the body. */
export interface ReadOptions {
  readonly rules: ResolvedRules
  /** Where temporary files go (`uploads.tmp_dir`, existing). */
  readonly tmpDir: string
  readonly dir: string
  readonly log: EventLog
  readonly libraries: Libraries
  /** Checks the whole body once read (the route's schema); an `HttpError` it throws refuses it. */
  readonly check?: (uploads: Uploads) => void
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
  /** Settles once a failed read removed its files. */
  #failed: Promise<void> = Promise.resolve()
  /** Settles once every file of a body parsed to its end is written (the writes never reject). */
  #finishing: Promise<void> = Promise.resolve()

  constructor(source: BodySource, headers: IncomingHttpHeaders, options: ReadOptions) {
    this.#options = options
    this.dir = options.dir
    this.result = new Promise<Uploads>((resolve, reject) => (this.#settle = { resolve, reject }))
    // Whoever awaits gets the failure; a handler that never awaits must not crash the process.
    this.result.catch(() => undefined)
    try {
      this.#start(source, headers)
    } catch (error) {
      this.#fail(error instanceof HttpError ? error : malformed('has no boundary', error))
    }
  }

  moved(tempPath: string): void {
    this.#temp.delete(tempPath)
  }

  /** Stops a read still going (the request ended without waiting for it) and removes the files. */
  async dispose(): Promise<void> {
    if (!this.#settled) this.#fail(malformed('was not read to its end'))
    await Promise.all([this.#failed, this.#finishing])
    await this.#removeTemp()
  }

  #start(source: BodySource, headers: IncomingHttpHeaders): void {
    const { rules } = this.#options
    const declared = Number(headers['content-length'])
    if (Number.isFinite(declared) && declared > rules.maxTotalSize)
      throw tooLarge('', 'body', rules.maxTotalSize)
    const parser: BusboyInstance = this.#options.libraries.Busboy({
      headers: headers as IncomingHttpHeaders & { 'content-type': string },
      limits: { fieldSize: rules.maxFieldSize, fileSize: Infinity, files: Infinity },
    })
    parser.on('file', this.#onFile)
    parser.on('field', this.#onField)
    parser.on('error', (error: unknown) => this.#fail(malformed('is malformed', error)))
    parser.on('finish', () => {
      this.#finishing = this.#finish()
    })
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
    // A stream read already (`ctx.body()` came first) or gone would never emit again.
    if (stream.readableEnded || stream.destroyed) throw malformed('was read already')
    const onData = (chunk: Buffer): void => void this.#count(chunk.length)
    const onBroken = (): void => {
      if (!stream.readableEnded && stream.complete !== true)
        this.#fail(malformed('ended before it was complete'))
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
    this.#fail(tooLarge(this.#current ?? '', 'body', limit))
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
      return this.#fail(refused(field, 'is in a field this route does not take'))
    if (++this.#fileCount > rules.maxFiles)
      return this.#fail(tooMany(field, 'files', rules.maxFiles))
    const name = safeFileName(sentName)
    const extension = extensionOf(name)
    if (rules.extensions !== undefined && !rules.extensions.has(extension))
      return this.#fail(
        refused(
          field,
          `has a name ending in ${extension === '' ? 'no extension' : `.${extension}`}`,
        ),
      )
    this.#streams.add(stream)
    // The failure is not awaited here: `#fail` waits for every write, this one included.
    const writing = this.#receive(field, stream, name, declaredType, this.#fileCount - 1).then(
      () => void this.#streams.delete(stream),
      (error: unknown) =>
        this.#fail(error instanceof HttpError ? error : malformed('is malformed', error)),
    )
    this.#writing.add(writing)
  }

  readonly #onField = (field: string, value: string, _n: boolean, truncated: boolean): void => {
    const { rules } = this.#options
    this.#current = field
    if (this.#failure !== undefined) return
    if (++this.#fieldCount > rules.maxFields)
      return this.#fail(tooMany(field, 'fields', rules.maxFields))
    if (truncated) return this.#fail(tooLarge(field, 'field', rules.maxFieldSize))
    const had = this.#fields[field]
    this.#fields[field] =
      had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value]
  }

  /** Writes one file to its temporary file and records it, in the order the files came. */
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
    const { size, type } = await writeUpload(stream, path, {
      maxFileSize: rules.maxFileSize,
      types: rules.types,
      signal: this.#abort.signal,
      detect: this.#options.libraries.detect,
      tooLarge: () => tooLarge(field, 'file', rules.maxFileSize),
      wrongType: (found) =>
        refused(field, `is ${found ?? 'of no known type'}, not ${rules.types!.join(' or ')}`),
    })
    const file = new UploadedFile({ field, name, size, type, declaredType: declared, path }, this)
    this.#files[index] = file
    const duration = log.now() - started
    log.record('upload.received', { field, name, size, type, declared_type: declared, duration })
  }

  async #finish(): Promise<void> {
    // Every write is waited for (none rejects: a failing one calls `#fail`), the list kept whole
    // for `#fail`, which must see each write closed before it removes the files.
    let waited = 0
    while (waited < this.#writing.size) {
      waited = this.#writing.size
      await Promise.all(this.#writing)
    }
    if (this.#failure !== undefined || this.#settled) return
    const uploads = { files: this.#files, fields: this.#fields }
    try {
      this.#options.check?.(uploads)
    } catch (error) {
      if (error instanceof HttpError) return this.#fail(error)
      throw error
    }
    this.#settled = true
    this.#settle.resolve(uploads)
  }

  /**
   * The first problem wins: reading stops and every write is aborted at once; once they closed
   * their files, the files go and `result` rejects. `#failed` settles then, never rejecting.
   */
  #fail(error: HttpError): void {
    if (this.#failure !== undefined || this.#settled) return
    this.#failure = error
    this.#settled = true
    this.#stop()
    this.#abort.abort(error)
    for (const s of this.#streams) s.destroy()
    this.#options.log.record('upload.refused', {
      field: (error.body.field as string | undefined) || undefined,
      code: error.code ?? 'FW_ERR_UPLOADS_MALFORMED',
      status: error.status,
    })
    this.#failed = Promise.allSettled([...this.#writing])
      .then(() => this.#removeTemp())
      .then(() => this.#settle.reject(error))
  }

  async #removeTemp(): Promise<void> {
    const paths = [...this.#temp]
    this.#temp.clear()
    await Promise.all(paths.map((p) => unlink(p).catch(() => undefined)))
  }
}
