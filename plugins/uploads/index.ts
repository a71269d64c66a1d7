// File uploads: multipart/form-data bodies streamed to temporary files, with limits (README.md).
import { tmpdir } from 'node:os'
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import {
  checkMultipartBody,
  definePlugin,
  isMultipartSchema,
  type Kernel,
  type RequestContext,
} from 'fw'
import './events.js'
import { uploadsErrors } from './errors.js'
import { loadLibraries } from './libraries.js'
import { MultipartRead } from './read-multipart.js'
import { resolveRules, type FileRules, type UploadRules } from './rules.js'
import type { UploadedFile, Uploads } from './uploaded-file.js'

/** What `kernel.plugin('uploads')` returns; handlers call {@link files} and {@link file}. */
export interface UploadsApi {
  /** The request's multipart body, read once (a second call answers the first read). */
  files(ctx: RequestContext, rules?: UploadRules): Promise<Uploads>
  /** The one file of field `name` (422 `FW_ERR_UPLOADS_MISSING` without it). */
  file(ctx: RequestContext, name: string, rules?: FileRules): Promise<UploadedFile>
  /** The folder `moveTo` paths are relative to and stay in (`uploads.dir`, absolute). */
  readonly dir: string
  /** This process's folder of temporary files, made on the first upload, removed at shutdown. */
  tmpDir(): Promise<string>
}

declare module 'fw' {
  interface PluginApis {
    uploads: UploadsApi
  }
  interface FwConfig {
    uploads: {
      /** The folder uploads are moved into (`moveTo`), relative to the app's root. */
      dir: string
      /** Where temporary files are written; the system's temporary folder by default. */
      tmp_dir: string | undefined
      /** The largest file, in bytes (10 MiB). */
      max_file_size: number
      /** The whole multipart body, in bytes (50 MiB). */
      max_total_size: number
      /** Files in one body (10). */
      max_files: number
      /** Plain fields in one body (100). */
      max_fields: number
      /** The longest plain field value, in bytes (64 KiB). */
      max_field_size: number
    }
  }
}

const MiB = 1024 * 1024

/** True when the request's body is `multipart/form-data`. */
export function isMultipart(ctx: RequestContext): boolean {
  const type = ctx.headers['content-type']
  return type !== undefined && /^\s*multipart\/form-data\s*;/i.test(type)
}

/** Every read of a request that is not over, so the request's end can remove its files. */
const reads = new WeakMap<RequestContext, Promise<MultipartRead>>()

function createApi(kernel: Kernel): UploadsApi {
  const config = kernel.config.uploads
  const dir = isAbsolute(config.dir) ? config.dir : resolve(kernel.root, config.dir)
  let temp: Promise<string> | undefined
  const tmpDir = (): Promise<string> =>
    (temp ??= (async () => {
      const base = config.tmp_dir ?? tmpdir()
      await mkdir(base, { recursive: true })
      return mkdtemp(join(base, 'fw-uploads-'))
    })())
  /** The read of a request's body, once the folder and the libraries are there. */
  const startRead = async (ctx: RequestContext, rules?: UploadRules): Promise<MultipartRead> => {
    if (!isMultipart(ctx)) throw uploadsErrors.httpError('FW_ERR_UPLOADS_NOT_MULTIPART')
    // A route whose schema declares the body's parts has them checked once read (422).
    const schema = ctx.match?.route.schema?.body
    const check =
      schema !== undefined && isMultipartSchema(schema)
        ? (u: Uploads) =>
            checkMultipartBody(
              schema,
              u.fields,
              u.files.map((f) => f.field),
            )
        : undefined
    const [folder, libraries] = await Promise.all([tmpDir(), loadLibraries()])
    const options = {
      rules: resolveRules(config, rules),
      tmpDir: folder,
      libraries,
      dir,
      log: ctx.log,
      check,
    }
    return new MultipartRead(ctx.rawBody(), ctx.headers, options)
  }
  const api: UploadsApi = {
    dir,
    tmpDir,
    files(ctx, rules) {
      // Kept at once, before any wait: a second call of the same request finds this read.
      let read = reads.get(ctx)
      if (read === undefined) {
        read = startRead(ctx, rules)
        reads.set(ctx, read)
      }
      const result = read.then((r) => r.result)
      // Whoever awaits gets the failure; a handler that never awaits must not end the process.
      result.catch(() => undefined)
      return result
    },
    async file(ctx, name, rules = {}) {
      const { files: received } = await api.files(ctx, { maxFiles: 1, ...rules, fields: [name] })
      const found = received.find((f) => f.field === name && f.size > 0)
      if (found === undefined)
        throw uploadsErrors.httpError(
          'FW_ERR_UPLOADS_MISSING',
          { field: name },
          { body: { field: name } },
        )
      return found
    },
  }
  kernel.hooks.shutdown.tapPromise('uploads', async () => {
    if (temp !== undefined) await rm(await temp, { recursive: true, force: true })
  })
  return api
}

/**
 * Uploads: `files(ctx)` and `file(ctx, name, rules)` read a `multipart/form-data` body as it
 * arrives, each file to a temporary file, with limits on sizes, counts and types (by content);
 * `moveTo` keeps a file inside `uploads.dir`. Temporary files are removed when the request ends.
 * Each file is an `upload.received` event, shown by the debug toolbar.
 *
 * @example
 * kernel.register(uploads)
 * kernel.router.post('avatar', async (ctx) => {
 *   const image = await file(ctx, 'avatar', { types: ['image/png', 'image/jpeg'] })
 *   return { path: await image.moveTo(`avatars/${image.name}`) }
 * })
 */
export default definePlugin<undefined, UploadsApi>({
  name: 'uploads',
  // debug: the toolbar's Uploads tab reads the `uploads` key of the payload.
  optionalDependsOn: ['debug'],
  config: {
    defaults: {
      uploads: {
        dir: 'storage/uploads',
        tmp_dir: undefined,
        max_file_size: 10 * MiB,
        max_total_size: 50 * MiB,
        max_files: 10,
        max_fields: 100,
        max_field_size: 64 * 1024,
      },
    },
    schema: {
      'uploads.dir': { kind: 'string', min: 1 },
      'uploads.tmp_dir': 'string?',
      'uploads.max_file_size': { kind: 'integer', min: 1 },
      'uploads.max_total_size': { kind: 'integer', min: 1 },
      'uploads.max_files': { kind: 'integer', min: 0 },
      'uploads.max_fields': { kind: 'integer', min: 0 },
      'uploads.max_field_size': { kind: 'integer', min: 0 },
    },
  },
  setup(kernel) {
    const api = createApi(kernel)
    // Every request ends here, errors and aborted uploads included: a read still going stops and
    // its temporary files go (test/plugins/uploads/upload-streaming.test.ts aborts uploads).
    // Synchronous, and nothing to do, for a request that read no upload.
    kernel.hooks.annotate.tap('uploads', (_reply, ctx) => {
      const read = reads.get(ctx)
      if (read === undefined) return undefined
      reads.delete(ctx)
      return read.then(
        (r) => r.dispose(),
        () => undefined, // it never started: nothing was written
      )
    })
    if (kernel.hasPlugin('debug'))
      kernel.plugin('debug').project('uploads', (i) => [
        ...i.of('upload.received').map((e) => ({
          field: e.data.field,
          name: e.data.name,
          size: e.data.size,
          type: e.data.type ?? null,
          declared_type: e.data.declared_type,
          at: i.ms(e.at),
          ms: i.ms(e.data.duration),
        })),
        ...i.of('upload.refused').map((e) => ({
          field: e.data.field ?? null,
          refused: e.data.code,
          status: e.data.status,
          at: i.ms(e.at),
        })),
      ])
    return api
  },
})

/**
 * The request's multipart body: its files (each in a temporary file) and its plain fields.
 *
 * @example
 * const { files: photos, fields } = await files(ctx, { types: ['image/*'], maxFiles: 5 })
 */
export function files(ctx: RequestContext, rules?: UploadRules): Promise<Uploads> {
  return ctx.kernel.plugin('uploads').files(ctx, rules)
}

/**
 * The one file of field `name`, checked against `rules`; 422 when there is none.
 *
 * @example
 * const image = await file(ctx, 'image', { maxFileSize: 2_000_000, types: ['image/png'] })
 */
export function file(ctx: RequestContext, name: string, rules?: FileRules): Promise<UploadedFile> {
  return ctx.kernel.plugin('uploads').file(ctx, name, rules)
}

export { uploadsErrors } from './errors.js'
export { UploadedFile } from './uploaded-file.js'
export type { MoveOptions } from './uploaded-file.js'
export type { Uploads } from './uploaded-file.js'
export type { FileRules, UploadRules } from './rules.js'
