// `fw api:docs`'s work, shared with the plugin's start-up regeneration: find the directory, scan
// it, build the document, merge the overrides, write it.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { responsesOf, writeFileAtomic, type Kernel, type Middleware } from 'fw'
import type { OpenAPIObject } from 'openapi3-ts/oas30'
import {
  buildDocument,
  countOperations,
  mergeOverrides,
  type DocumentInfo,
  type FactsOf,
  type SecurityName,
} from './build.js'
import { openapiErrors } from './errors.js'
import { namespaceOf, scanRoutes, shown, siblingsOf } from './scan.js'

/** What to generate: each has the default README.md "Options" gives. */
export interface GenerateOptions {
  /** The controllers directory, relative to the app root. Default: `api/controllers`, else `controllers`. */
  controllers?: string
  /** Route-name prefix to keep (`v1.`). Default: derived from the directory. */
  namespace?: string
  /** The document's file. Default: `api/openapi.json` under `public`, `www`, `html` or `web`. */
  output?: string
  /** `info.title`. Default: the app's name. */
  title?: string
  /** `info.version`. Default: `1.0.0`. */
  apiVersion?: string
  /** `servers[].url`. */
  servers?: readonly string[]
  /** A JSON file deep-merged over the generated document. */
  overrides?: string
  /** More middleware names that require a scheme (`{ session: ['bearerAuth'] }`). */
  security?: Readonly<Record<string, readonly SecurityName[]>>
}

/** What a generation did, for the CLI's lines. */
export interface Generated {
  readonly document: OpenAPIObject
  readonly dir: string
  readonly namespace: string
  readonly output: string
  readonly paths: number
  readonly operations: number
  /** A sibling directory with more operations, when the directory was not given. */
  readonly richerSibling: { readonly dir: string; readonly operations: number } | undefined
}

const PUBLIC_DIRS = ['public', 'www', 'html', 'web']

/** The default document file: `api/openapi.json` under the app's public folder. */
export function defaultOutput(root: string): string {
  const folder = PUBLIC_DIRS.find((d) => existsSync(join(root, d))) ?? 'public'
  return join(root, folder, 'api', 'openapi.json')
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory()
}

/**
 * What a route's middleware (the api plugin's, by identity) and permissions tell the document: the
 * schemes it needs, and the statuses its middleware documented (`documentResponses`: a lockout's
 * or a rate limit's 429).
 */
function factsResolver(
  kernel: Kernel,
  extra: Readonly<Record<string, readonly SecurityName[]>>,
): FactsOf {
  const known = new Map<Middleware, readonly SecurityName[]>()
  if (kernel.hasPlugin('api')) {
    const api = kernel.plugin('api')
    known.set(api.pipeline, ['apiKey'])
    known.set(api.apiKey, ['apiKey'])
    known.set(api.unified, ['bearerAuth'])
  }
  return (route) => {
    const found = new Set<SecurityName>()
    let responses: Record<number, string> = {}
    for (const name of route.middleware) {
      const fn = kernel.middlewareFor(name)
      for (const scheme of extra[name] ?? (fn === undefined ? [] : (known.get(fn) ?? [])))
        found.add(scheme)
      responses = { ...responses, ...responsesOf(fn) }
    }
    if (route.permissions.length > 0) {
      found.add('bearerAuth')
      responses = { 403: 'The credential may not do this.', ...responses }
    }
    return { security: [...found].sort(), responses }
  }
}

/** An SPDX identifier (`MIT`, `Apache-2.0`), which has a page of its own. */
const SPDX = /^[A-Za-z0-9.+-]+$/

/**
 * `info.license` from the `license` of the app's package.json (the nearest at or above its root):
 * its name, and the SPDX page of a plain identifier. None for `UNLICENSED` or an expression.
 */
function licenseOf(root: string): DocumentInfo['license'] {
  for (let dir = root; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      let license: unknown
      try {
        license = (JSON.parse(readFileSync(file, 'utf8')) as { license?: unknown }).license
      } catch {
        return undefined
      }
      if (typeof license !== 'string' || license === '' || license === 'UNLICENSED')
        return undefined
      return SPDX.test(license)
        ? { name: license, url: `https://spdx.org/licenses/${license}.html` }
        : { name: license }
    }
    if (dirname(dir) === dir) return undefined
  }
}

function readOverrides(file: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw openapiErrors.error('FW_ERR_OPENAPI_OVERRIDES', {
      file,
      reason:
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'it does not exist'
          : (error as Error).message,
    })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw openapiErrors.error('FW_ERR_OPENAPI_OVERRIDES', {
      file,
      reason: `it is not valid JSON (${(error as Error).message})`,
    })
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw openapiErrors.error('FW_ERR_OPENAPI_OVERRIDES', {
      file,
      reason: 'it is not a JSON object',
    })
  return parsed
}

/** Builds the document of a booted kernel's routes (does not write it). */
export async function generateDocument(
  kernel: Kernel,
  options: GenerateOptions = {},
): Promise<Generated> {
  const root = kernel.root
  const given = options.controllers !== undefined
  const dir = given
    ? resolve(root, options.controllers!)
    : [join(root, 'api', 'controllers'), join(root, 'controllers')].find(isDirectory)
  if (dir === undefined || !isDirectory(dir))
    throw openapiErrors.error('FW_ERR_OPENAPI_NO_CONTROLLERS', {
      dir: dir === undefined ? root : shown(root, dir),
      given,
    })
  const namespace = options.namespace ?? namespaceOf(shown(root, dir))
  const routes = kernel.router.routes()
  const info = {
    title: options.title ?? kernel.config.app.name ?? 'API',
    version: options.apiVersion ?? '1.0.0',
    servers: options.servers ?? [],
    license: licenseOf(root),
    ...(kernel.hasPlugin('auth') ? { tokenScheme: kernel.config.auth.token_scheme } : {}),
  }
  const factsOf = factsResolver(kernel, options.security ?? {})
  const built = await buildDocument(await scanRoutes(routes, dir, namespace), info, factsOf)
  const overrides =
    options.overrides === undefined ? undefined : readOverrides(resolve(root, options.overrides))
  const document = (
    overrides === undefined ? built : mergeOverrides(built, overrides)
  ) as OpenAPIObject
  const counts = countOperations(document)
  let richerSibling: Generated['richerSibling']
  if (!given) {
    for (const sibling of siblingsOf(dir)) {
      let operations: number
      try {
        const scanned = await scanRoutes(routes, sibling, namespaceOf(shown(root, sibling)))
        operations = countOperations(await buildDocument(scanned, info, factsOf)).operations
      } catch {
        continue // a folder whose modules do not load is no candidate
      }
      if (operations > counts.operations && operations > (richerSibling?.operations ?? 0))
        richerSibling = { dir: shown(root, sibling), operations }
    }
  }
  const output = options.output === undefined ? defaultOutput(root) : resolve(root, options.output)
  return { document, dir: shown(root, dir), namespace, output, ...counts, richerSibling }
}

/**
 * Writes a generated document (pretty JSON, a trailing newline), creating its folder. Atomically
 * (a file beside it, renamed into place): a server answering `GET /api/openapi.json` while
 * `fw api:docs` or another instance's start writes it serves the old document or the new one,
 * never half of one.
 */
export function writeDocument(generated: Generated): void {
  try {
    writeFileAtomic(generated.output, `${JSON.stringify(generated.document, null, 2)}\n`)
  } catch (error) {
    throw openapiErrors.error('FW_ERR_OPENAPI_OUTPUT', {
      file: generated.output,
      reason: (error as Error).message,
    })
  }
}
