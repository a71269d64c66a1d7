// What fw's compiled copies share: esbuild (tsx's own compiler, also a devDependency of fw), and the
// plugin that keeps `import.meta` as in the source file: a compiled module runs from a cache folder,
// yet `import.meta.url` (createRequire, `new URL('./x', import.meta.url)`), `import.meta.dirname`
// and `import.meta.filename` still name the source file, as they do under tsx.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'

/** The part of esbuild's API the compiled copies use. */
export interface Esbuild {
  readonly version: string
  build(options: Record<string, unknown>): Promise<BuildResult>
  transform(
    source: string,
    options: Record<string, unknown>,
  ): Promise<{ code: string; warnings: Message[] }>
}

export interface Message {
  readonly text: string
  readonly id?: string
  readonly location?: { file: string; line: number; column: number } | null
}

export interface BuildResult {
  readonly errors: Message[]
  readonly warnings: Message[]
  readonly metafile?: {
    inputs: Record<string, unknown>
    outputs: Record<string, { entryPoint?: string }>
  }
}

/** A plugin as esbuild's `build` takes it (the callbacks this module uses). */
export interface Plugin {
  readonly name: string
  setup(build: PluginBuild): void
}

export interface PluginBuild {
  onResolve(
    options: { filter: RegExp },
    callback: (args: {
      path: string
      importer: string
      kind: string
    }) => { path?: string; external?: boolean; errors?: { text: string }[] } | undefined,
  ): void
  onLoad(
    options: { filter: RegExp },
    callback: (args: {
      path: string
    }) => Promise<{ contents: string; loader: string; resolveDir?: string } | undefined>,
  ): void
}

/** `id` of esbuild's package as tsx or fw installed it; undefined when neither did. */
function fromEsbuild<T>(id: string): T | undefined {
  const require = createRequire(import.meta.url)
  try {
    return require(id) as T
  } catch {
    try {
      return createRequire(require.resolve('tsx/package.json'))(id) as T
    } catch {
      return undefined
    }
  }
}

/** esbuild as tsx or fw installed it; undefined when neither did (nothing is compiled then). */
export function loadEsbuild(): Esbuild | undefined {
  return fromEsbuild<Esbuild>('esbuild')
}

/** The version of the esbuild {@link loadEsbuild} loads, read without loading it. */
export function esbuildVersion(): string | undefined {
  return fromEsbuild<{ version?: string }>('esbuild/package.json')?.version
}

/** The target a compiled copy is built for: the running Node, as tsx compiles for it. */
export function nodeTarget(): string {
  return `node${process.versions.node}`
}

const LOADERS: Record<string, string> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.jsx': 'jsx',
}

/**
 * Replaces `import.meta.url`, `.dirname` and `.filename` in each module outside `node_modules/`
 * that uses them with the source file's own values. Only those modules are compiled on their
 * own first (esbuild reads every other one itself); `tsconfigRaw` is the TypeScript options to
 * compile them with (the ones esbuild finds for the rest).
 */
export function importMetaPlugin(esbuild: Esbuild, tsconfigRaw: string | undefined): Plugin {
  return {
    name: 'fw-import-meta',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async ({ path }) => {
        if (path.includes('/node_modules/')) return undefined
        const source = readFileSync(path, 'utf8')
        if (!source.includes('import.meta')) return undefined
        const ext = /\.[cm]?[jt]sx?$/.exec(path)![0]
        const { code } = await esbuild.transform(source, {
          loader: LOADERS[ext.replace(/^\.c/, '.')] ?? 'js',
          format: 'esm',
          target: nodeTarget(),
          keepNames: true,
          sourcemap: 'inline',
          sourcefile: path,
          ...(tsconfigRaw === undefined ? {} : { tsconfigRaw }),
          define: {
            'import.meta.url': JSON.stringify(pathToFileURL(path).href),
            'import.meta.dirname': JSON.stringify(dirname(path)),
            'import.meta.filename': JSON.stringify(path),
          },
        })
        return { contents: code, loader: 'js', resolveDir: dirname(path) }
      })
    },
  }
}
