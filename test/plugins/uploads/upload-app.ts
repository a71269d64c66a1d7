// The uploads tests' app and client: a kernel with the uploads plugin whose temporary and upload
// folders are fresh, routes that read uploads with the rules a test sends, and a multipart body
// written by hand (so a test can generate a large file, lie about a name, or stop midway).
import { mkdtempSync, readdirSync } from 'node:fs'
import { request, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { json, type Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import uploads, { file, files, type UploadRules } from 'fw/plugins/uploads'

export const BOUNDARY = '----fw-test-boundary-7MA4YWxkTrZu0gW'

/** Rules a test hands the routes, by name (`?rules=…`). */
export const RULES: Record<string, UploadRules> = {}

/** A kernel with the uploads plugin and the test routes; its folders are fresh temporary ones. */
export function uploadApp(config: Record<string, unknown> = {}): {
  kernel: Kernel
  tmp: string
  dir: string
} {
  const tmp = mkdtempSync(join(tmpdir(), 'fw-upload-tmp-'))
  const dir = mkdtempSync(join(tmpdir(), 'fw-upload-dir-'))
  const kernel = createTestKernel({
    config: { uploads: { tmp_dir: tmp, dir, ...config } },
    plugins: [[uploads, undefined]],
  })
  kernel.router.post('files', async (ctx) => {
    const rules = RULES[String(ctx.query.rules ?? '')] ?? {}
    const { files: received, fields } = await files(ctx, rules)
    return json({
      fields,
      files: received.map((f) => ({
        field: f.field,
        name: f.name,
        size: f.size,
        type: f.type ?? null,
      })),
    })
  })
  kernel.router.post('image', async (ctx) => {
    const image = await file(ctx, 'image', {
      types: ['image/png', 'image/jpeg'],
      extensions: ['png', 'jpg'],
    })
    const to = typeof ctx.query.to === 'string' ? ctx.query.to : image.name
    return json({ name: image.name, type: image.type, path: await image.moveTo(to) })
  })
  kernel.router.post('read-twice', async (ctx) => {
    await ctx.body().catch(() => undefined)
    await files(ctx)
    return json({ ok: true })
  })
  kernel.router.post('slow', async (ctx) => {
    await files(ctx)
    await new Promise((r) => setTimeout(r, 50))
    return json({ ok: true })
  })
  return { kernel, tmp, dir }
}

/** Every file left under `folder`, at any depth. */
export function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

/** One part of a hand-written multipart body: a field, or a file whose bytes come from `body`. */
export type Part =
  | { name: string; value: string }
  | {
      name: string
      filename: string
      type?: string
      body: Uint8Array | (() => AsyncIterable<Uint8Array>)
    }

/** The head of a part, as a browser writes it. */
function partHead(part: Part): string {
  if ('value' in part)
    return `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${part.name}"\r\n\r\n`
  return (
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
    `content-type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`
  )
}

/** The body's bytes as a stream, parts in order; `cut` stops it after that many bytes (an abort). */
export async function* multipart(parts: readonly Part[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    yield Buffer.from(partHead(part))
    if ('value' in part) yield Buffer.from(part.value)
    else if (part.body instanceof Uint8Array) yield part.body
    else yield* part.body()
    yield Buffer.from('\r\n')
  }
  yield Buffer.from(`--${BOUNDARY}--\r\n`)
}

/** The whole body in memory (small bodies, `inject`). */
export async function multipartBytes(parts: readonly Part[]): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  for await (const c of multipart(parts)) chunks.push(c)
  return Buffer.concat(chunks)
}

/** Its exact length, for `Content-Length`, when every file is given as bytes. */
export async function multipartLength(parts: readonly Part[]): Promise<number> {
  return (await multipartBytes(parts)).length
}

export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`

/** `n` bytes of a repeating pattern, generated in 64 KiB chunks (never held whole). */
export function generated(n: number): () => AsyncIterable<Uint8Array> {
  return async function* () {
    const chunk = Buffer.alloc(64 * 1024, 'fw-upload-')
    let left = n
    while (left > 0) {
      const size = Math.min(left, chunk.length)
      left -= size
      yield size === chunk.length ? chunk : chunk.subarray(0, size)
    }
  }
}

/** The smallest PNG header and a few bytes after it: what file-type reads as `image/png`. */
export const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
  Buffer.alloc(64, 1),
])

/** A response over a socket: status, headers, the parsed JSON body. */
export interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
}

/** POSTs a body over a real socket (streamed, chunked unless `length` is given). */
export function post(
  url: string,
  body: AsyncIterable<Uint8Array>,
  options: { length?: number; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': MULTIPART,
        accept: 'application/json',
        ...(options.length === undefined ? {} : { 'content-length': String(options.length) }),
        ...options.headers,
      },
    })
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString()
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
        })
      })
    })
    // The server may answer (a refusal) and close before the whole body went: not a failure here.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
    })
    Readable.from(body).pipe(req)
  })
}
