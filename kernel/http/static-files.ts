import { readdirSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, relative, sep } from 'node:path'
import polka from 'polka'
import sirv from 'sirv'
import { crossOriginHeaders } from './cross-origin.js'
import { compressAsync, type Compression, type Encoding } from './compression.js'
import type { SecurityHeaders } from './security-headers.js'
import { cameOverHttps } from './socket-request.js'

/** A folder served as static files under a URL prefix (by sirv, before the pipeline). */
export interface StaticMount extends StaticOptions {
  readonly prefix: string
  readonly dir: string
}

/** How a static mount serves its files (`kernel.static(prefix, dir, options)`). */
export interface StaticOptions {
  /** Cache-Control max-age in seconds (default 0: revalidate). */
  readonly maxAge?: number
  /** Adds `immutable` to Cache-Control: for files whose names carry a content hash. */
  readonly immutable?: boolean
  /**
   * Lets pages of other origins load and time the files: a request with an `Origin` gets it back
   * in `Access-Control-Allow-Origin` and `Timing-Allow-Origin` (with `Vary: Origin`).
   */
  readonly crossOrigin?: boolean
  /**
   * Looks each file up when asked instead of listing the folder once at start: for a folder the
   * app writes into while it runs (uploads). Its files are not served precompressed.
   */
  readonly live?: boolean
}

/** Middleware as polka runs it. */
type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void

/** What the static mounts need from the server. */
export interface StaticContext {
  readonly security: SecurityHeaders
  readonly trustProxy: boolean
  /** Undefined when `http.compression.enabled` is false. */
  readonly compression: Compression | undefined
}

/**
 * polka with a handler per mount: sirv serves the files (ETag, ranges, `Cache-Control`), after
 * {@link compressedFiles} answered the requests it can from memory, compressed. Undefined without
 * mounts.
 */
export function staticApp(
  statics: readonly StaticMount[],
  context: StaticContext,
): ReturnType<typeof polka> | undefined {
  if (statics.length === 0) return undefined
  const app = polka()
  for (const mount of statics) {
    const files =
      mount.live !== true && context.compression
        ? compressedFiles(mount, context, context.compression)
        : undefined
    const served = sirv(mount.dir, {
      dev: mount.live === true,
      etag: true,
      maxAge: mount.maxAge ?? 0,
      immutable: mount.immutable ?? false,
      setHeaders: (res: ServerResponse) => {
        for (const [name, value] of commonHeaders(res.req, mount, context)) {
          // `Vary: Accept-Encoding`, set before sirv ran for a file that compresses, stays.
          const before = name === 'vary' ? res.getHeader('vary') : undefined
          res.setHeader(name, before === undefined ? value : `${String(before)}, ${value}`)
        }
      },
    })
    if (files === undefined) app.use(mount.prefix, served)
    else app.use(mount.prefix, files, served)
  }
  return app
}

/** The security headers (HTTPS ones over HTTPS) and the mount's cross-origin headers. */
function commonHeaders(
  req: IncomingMessage,
  mount: StaticMount,
  context: StaticContext,
): (readonly [string, string])[] {
  const out: (readonly [string, string])[] = [...context.security.always]
  if (context.security.https.length !== 0 && cameOverHttps(req, context.trustProxy))
    out.push(...context.security.https)
  if (mount.crossOrigin === true)
    out.push(...Object.entries(crossOriginHeaders(req.headers.origin) ?? {}))
  return out
}

/** Types of the files that compress, by extension (what sirv would answer them with). */
const TEXT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html;charset=utf-8',
  '.htm': 'text/html;charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.md': 'text/markdown',
}

/** Brotli and gzip at their best: a static file is compressed once. */
const STATIC_OPTIONS: Record<Encoding, object> = { br: {}, gzip: { level: 9 } }

/** A file served compressed: read and compressed on its first request, kept in memory. */
interface CompressedFile {
  readonly abs: string
  readonly type: string
  readonly size: number
  readonly mtime: Date
  readonly bodies: Partial<Record<Encoding, Promise<Buffer>>>
}

/**
 * Answers, from memory, the requests for a mount's text files over the threshold from a client
 * that accepts brotli or gzip: each file compressed once at the codings' best, on the thread pool,
 * when it is first asked for (its ETag names the coding). Like sirv, the folder is read when the
 * server starts. Everything else (a range, identity, another file, a failure) goes on to sirv,
 * with `Vary: Accept-Encoding` set for a file that compresses.
 */
function compressedFiles(
  mount: StaticMount,
  context: StaticContext,
  compression: Compression,
): Handler | undefined {
  const index = new Map<string, CompressedFile>()
  for (const entry of readdirSync(mount.dir, { recursive: true, withFileTypes: true })) {
    const abs = join(entry.parentPath, entry.name)
    const name = relative(mount.dir, abs).split(sep).join('/')
    const type = TEXT_TYPES[extname(name).toLowerCase()]
    // Dot files are not served (sirv's rule).
    if (!entry.isFile() || type === undefined || /(^|\/)\./.test(name)) continue
    const stats = statSync(abs)
    if (stats.size < compression.threshold) continue
    const file = { abs, type, size: stats.size, mtime: stats.mtime, bodies: {} }
    for (const key of urlsOf(name)) if (!index.has(key)) index.set(key, file)
  }
  if (index.size === 0) return undefined
  let cacheControl = `public,max-age=${mount.maxAge ?? 0}`
  if (mount.immutable === true) cacheControl += ',immutable'
  else if ((mount.maxAge ?? 0) === 0) cacheControl += ',must-revalidate'
  return (req, res, next) => {
    const file = index.get(pathOf(req.url ?? '/'))
    if (file === undefined) return next()
    res.setHeader('vary', 'Accept-Encoding')
    const encoding = compression.encodingFor(req.headers['accept-encoding'])
    if (encoding === undefined || req.headers.range !== undefined) return next()
    const etag = `W/"${file.size}-${file.mtime.getTime()}-${encoding}"`
    const headers: Record<string, string | number> = { 'cache-control': cacheControl, etag }
    for (const [name, value] of commonHeaders(req, mount, context))
      headers[name] = name === 'vary' ? `Accept-Encoding, ${value}` : value
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end()
      return
    }
    const body = (file.bodies[encoding] ??= readFile(file.abs).then((bytes) =>
      compressAsync(bytes, encoding, STATIC_OPTIONS[encoding]),
    ))
    body.then(
      (bytes) => {
        headers['content-type'] = file.type
        headers['content-encoding'] = encoding
        headers['content-length'] = bytes.byteLength
        headers['last-modified'] = file.mtime.toUTCString()
        res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : bytes)
      },
      () => {
        // Served as it is: sirv answers (and fails the same way if the file is gone).
        delete file.bodies[encoding]
        next()
      },
    )
  }
}

/** The URL paths sirv answers a file on (`a/index.html`: `/a/index.html`, `/a/index`, `/a`). */
function urlsOf(name: string): string[] {
  const urls = [`/${name}`]
  const page = /^(.*?)(?:\/?index)?\.html?$/.exec(name)
  if (page !== null) {
    urls.push(`/${name.replace(/\.html?$/, '')}`)
    if (/(^|\/)index\.html?$/.test(name)) urls.push(`/${page[1]}`)
  }
  return urls
}

/** A request URL's path, decoded, without a trailing `/` (how sirv looks a file up). */
function pathOf(url: string): string {
  const q = url.indexOf('?')
  let path = q === -1 ? url : url.slice(0, q)
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1)
  if (!path.includes('%')) return path
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}

/** True when the URL's path lies under one of the mount prefixes (as polka's `use(prefix)` matches). */
export function mounted(prefixes: readonly string[], url: string): boolean {
  for (const prefix of prefixes) {
    if (!url.startsWith(prefix)) continue
    const next = url.charCodeAt(prefix.length)
    // End of the URL, '/', '?' or '#': the prefix is a whole segment.
    if (Number.isNaN(next) || next === 47 || next === 63 || next === 35) return true
  }
  return false
}
