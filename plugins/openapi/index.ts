// API documents (docs/openapi.md, and this plugin's README.md): `fw api:docs`,
// `fw create:api-client`, and the document served at `GET /api/openapi.json`, regenerated when the
// app starts and finds none.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { definePlugin, HttpError, text as textReply, type Kernel } from 'fw'
import type { OpenAPIObject } from 'openapi3-ts/oas30'
import { CreateApiClientCommand } from './client-command.js'
import { ApiDocsCommand } from './docs-command.js'
import {
  defaultOutput,
  generateDocument,
  writeDocument,
  type GenerateOptions,
  type Generated,
} from './generate.js'

/** Options of the openapi plugin: the defaults of `fw api:docs`, and where the document is served. */
export interface OpenApiOptions extends GenerateOptions {
  /** The route that serves the document (default `'api/openapi.json'`); `false`: none. */
  route?: string | false
  /** Write the document when the app starts (`listen`) and finds none (default true). */
  generateOnStart?: boolean
}

/** What `kernel.plugin('openapi')` returns. */
export interface OpenApiApi {
  /** Builds the document of the app's routes now (does not write it). */
  document(options?: GenerateOptions): Promise<OpenAPIObject>
  /** Builds it with the plugin's options under `options` (what `fw api:docs` does), with counts. */
  generate(options?: GenerateOptions): Promise<Generated>
}

declare module 'fw' {
  interface PluginApis {
    openapi: OpenApiApi
  }
}

/** The written document, read again only when its file changes. */
function documentFile(file: () => string): () => string | undefined {
  let cached: { mtime: number; text: string } | undefined
  return () => {
    const path = file()
    if (!existsSync(path)) return undefined
    const mtime = statSync(path).mtimeMs
    if (cached?.mtime !== mtime) cached = { mtime, text: readFileSync(path, 'utf8') }
    return cached.text
  }
}

/**
 * The openapi plugin: the `api:docs` and `create:api-client` commands, the document at
 * `GET /api/openapi.json` (route `openapi.document`), and its generation on start when missing.
 * Uses the api plugin, when registered, to tell which routes need an API key or a token.
 *
 * @example
 * kernel.register(openapi, { title: 'Shop API', apiVersion: '2.0.0' })
 */
export default definePlugin<OpenApiOptions | undefined, OpenApiApi>({
  name: 'openapi',
  optionalDependsOn: ['api', 'auth', 'debug'],
  setup(kernel: Kernel, options = {}) {
    const generate = (more: GenerateOptions = {}): Promise<Generated> =>
      generateDocument(kernel, { ...options, ...defined(more) })
    let output: string | undefined
    const outputFile = (): string => (output ??= generateOutput(kernel, options))
    if (options.route !== false) {
      const read = documentFile(outputFile)
      const route = options.route ?? 'api/openapi.json'
      if (kernel.hasPlugin('debug'))
        kernel.plugin('debug').describeApi({ document: `/${route.replace(/^\/+/, '')}` })
      kernel.router
        .get(route, () => {
          const text = read()
          if (text === undefined)
            throw new HttpError(404, {
              error: 'not_found',
              message: 'No API document has been written: run fw api:docs.',
            })
          // The file's bytes, as written: a JSON reply would be re-serialised and annotated.
          return textReply(text).header('content-type', 'application/json; charset=utf-8')
        })
        .name('openapi.document')
    }
    if (options.generateOnStart !== false) {
      kernel.hooks.listen.tapPromise('openapi', async () => {
        if (existsSync(outputFile())) return
        const generated = await generate()
        writeDocument(generated)
        kernel.logger.info('API document written', {
          file: generated.output,
          operations: generated.operations,
        })
      })
    }
    kernel.command(ApiDocsCommand)
    kernel.command(CreateApiClientCommand)
    return { generate, document: async (more) => (await generate(more)).document }
  },
})

/** The options given, without the ones left undefined (a CLI flag not passed). */
function defined(options: GenerateOptions): GenerateOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))
}

function generateOutput(kernel: Kernel, options: GenerateOptions): string {
  return options.output === undefined
    ? defaultOutput(kernel.root)
    : resolve(kernel.root, options.output)
}

export { buildDocument, mergeOverrides, countOperations } from './build.js'
export type { DocumentInfo, SecurityName } from './build.js'
export { renderClient } from './client.js'
export { docComments, splitComment } from './doc-comments.js'
export type { DocComment } from './doc-comments.js'
export { generateDocument, writeDocument, defaultOutput } from './generate.js'
export type { GenerateOptions, Generated } from './generate.js'
export { openapiErrors } from './errors.js'
export { ApiDocsCommand, CreateApiClientCommand }
