import { existsSync, readFileSync } from 'node:fs'
import module from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { AppFactory, Kernel } from 'fw'
import type { LibraryHooksData } from './compile/library-hooks.js'
import { loadEnvFile } from './env-file.js'
import { packageRoot, preferCompiled } from './prefer-compiled.js'

/**
 * The app could not be found, loaded, built or booted: the CLI prints the message on one line
 * (and the cause's stack under `FW_DEBUG`) and exits 1.
 */
export class AppLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AppLoadError'
  }
}

/**
 * No app is named from the cwd: neither `FW_APP` nor the `fw.app` field of a package.json from the
 * cwd up. `fw --help` then lists the commands that run outside an app (cli/outside-app.ts).
 */
export class NoAppError extends AppLoadError {
  constructor() {
    super(
      'No fw app found: set FW_APP to the app module, or add "fw": { "app": "./app.ts" } to your package.json.',
    )
  }
}

/** Where the app module was found, and who said so. */
export interface AppLocation {
  /** Absolute path of the module whose default export is the {@link AppFactory}. */
  readonly file: string
  /** `FW_APP`, or the package.json whose `fw.app` field named it. */
  readonly from: string
}

/** Options of {@link loadApp}. */
export interface LoadAppOptions {
  /** Where to start looking for package.json. Default: the cwd. */
  cwd?: string
  /** The environment: `FW_APP` is read from it and `.env` loaded into it. Default: `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Boot the kernel (`kernel.boot()`); off for commands that only need its root. Default: true. */
  boot?: boolean
  /** Import the app module as found, never its compiled copy under `dist/` (`fw dev`). */
  source?: boolean
}

/**
 * Finds the app module: `FW_APP` (relative to the cwd), else the `fw.app` field of the nearest
 * package.json walking up from the cwd, relative to that package.json.
 */
export function findApp(cwd: string, env: NodeJS.ProcessEnv): AppLocation {
  if (env.FW_APP) return { file: resolve(cwd, env.FW_APP), from: 'FW_APP' }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) {
      const app = readAppField(manifest)
      if (app !== undefined) return { file: resolve(dir, app), from: manifest }
    }
    if (dirname(dir) === dir) break
  }
  throw new NoAppError()
}

function readAppField(manifest: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(manifest, 'utf8'))
  } catch (cause) {
    throw new AppLoadError(`${manifest} is not valid JSON (${(cause as Error).message}).`, {
      cause,
    })
  }
  const fw = (parsed as { fw?: { app?: unknown } } | null)?.fw
  if (fw?.app === undefined) return undefined
  if (typeof fw.app !== 'string' || fw.app === '') {
    throw new AppLoadError(
      `The "fw.app" field of ${manifest} must be a path to the app module, e.g. "./app.ts".`,
    )
  }
  return fw.app
}

/** True when this process already runs TypeScript (the CLI itself is a `.ts` file: tsx is loaded). */
function runsTypeScript(): boolean {
  return import.meta.url.endsWith('.ts')
}

let typeScript = false

/**
 * Lets this process import the TypeScript app module `file` (tsx's loader hooks), once; nothing
 * when it is JavaScript or the CLI runs through tsx already. From then on every module loaded
 * costs a round trip to tsx: fw's own are its bundle's few modules, or without a bundle its compiled
 * library (compile/library.ts), a few chunks, unless `FW_COMPILE_CACHE=0`.
 */
export async function registerTypeScript(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (typeScript || !/\.[cm]?tsx?$/.test(file) || runsTypeScript()) return
  // fw's bundle (`dist/bundle/`, scripts/bundle-dist.mjs) is a few modules already, which the CLI
  // and the app's imports of fw share: no compiled library (test/cli/compile-library.test.ts).
  // Looked up before tsx is registered: a resolve after it is a blocking round trip to its thread.
  const bundle = new URL('../bundle/', import.meta.url)
  const bundled = existsSync(fileURLToPath(new URL('kernel-index.js', bundle)))
  try {
    const { register } = await import('tsx/esm/api')
    register()
    typeScript = true
  } catch (cause) {
    throw new AppLoadError(
      `The app module ${file} is TypeScript, and tsx could not be loaded to run it. Install it (npm install --save-dev tsx) or point FW_APP at compiled JavaScript.`,
      { cause },
    )
  }
  if (bundled) {
    // Registered after tsx, so asked first: the bundle's modules load as they are, where tsx would
    // rewrite each one's dynamic imports and attach a source map (test/e2e/packed-install.test.ts).
    const data: LibraryHooksData = { folder: bundle.href, entries: {} }
    module.register(new URL('./compile/library-hooks.js', import.meta.url), { data })
    return
  }
  const { compiledLibrary, registerLibrary } = await import('./compile/library.js')
  const library = await compiledLibrary('dist', env)
  if (library !== undefined) registerLibrary(library)
}

/**
 * A dynamic import's namespace as tsx gives it to the code it compiles: for a CommonJS module
 * compiled from ESM (a `.ts` app outside a `"type": "module"` package, run by tsx as CommonJS), its
 * exports object, whose `default` is the app factory. Done here, not left to tsx, so that the CLI
 * reads an app alike however its own modules were compiled: by tsx, by tsc or bundled.
 */
function esModuleInterop<T extends object>(namespace: T): T {
  const value = (namespace as { default?: unknown }).default
  return value !== null && typeof value === 'object' && '__esModule' in value
    ? (value as T)
    : namespace
}

async function importFactory(
  file: string,
  from: string,
  env: NodeJS.ProcessEnv,
): Promise<AppFactory> {
  if (!existsSync(file)) {
    const fix =
      from === 'FW_APP' ? 'Fix FW_APP' : `Fix the "fw.app" field of ${from}, or set FW_APP`
    throw new AppLoadError(
      `The app module ${file} (named by ${from}) does not exist. ${fix} to point at the module that default-exports the app factory.`,
    )
  }
  await registerTypeScript(file, env)
  let mod: { default?: unknown }
  try {
    mod = esModuleInterop((await import(pathToFileURL(file).href)) as { default?: unknown })
  } catch (cause) {
    throw new AppLoadError(
      `Could not load the app module ${file}: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    )
  }
  if (typeof mod.default !== 'function') {
    throw new AppLoadError(
      `The app module ${file} must default-export a function that returns a kernel (an AppFactory), e.g. export default () => createKernel({ root }).`,
    )
  }
  return mod.default as AppFactory
}

async function build(
  factory: AppFactory,
  file: string,
  env: NodeJS.ProcessEnv,
  root: string,
): Promise<Kernel> {
  let kernel: Kernel
  try {
    kernel = await factory({ env, root })
  } catch (cause) {
    throw new AppLoadError(`The app factory in ${file} failed: ${describe(cause)}`, { cause })
  }
  const candidate = kernel as Partial<Kernel> | null | undefined
  if (typeof candidate?.boot !== 'function' || typeof candidate.root !== 'string') {
    throw new AppLoadError(
      `The app factory in ${file} must return a kernel (from createKernel), got ${typeof kernel}.`,
    )
  }
  return kernel
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('FW_ERR_')
    ? `${error.message} [${code}]`
    : error.message
}

/**
 * The module to import for the app module `file`: its `dist/` copy when up to date
 * ({@link preferCompiled}), else for a TypeScript app fw's compiled copy when it runs as the
 * sources would (cli/compile/app-copy.ts), else `file` itself, through tsx. `FW_APP_COMPILED=0`,
 * and a CLI that runs through tsx itself, always take `file`.
 */
async function moduleToRun(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const typeScript = runsTypeScript()
  const compiled = preferCompiled(file, env, typeScript)
  if (compiled !== file || typeScript || env.FW_APP_COMPILED === '0') return compiled
  const root = /\.m?tsx?$/.test(file) ? packageRoot(dirname(file)) : undefined
  if (root === undefined) return file
  const { appCopy } = await import('./compile/app-copy.js')
  const copy = await appCopy(file, root)
  if (copy === undefined) return file
  // Stack traces name the sources, as under tsx.
  process.setSourceMapsEnabled(true)
  return copy
}

/**
 * Loads the app: finds its module, loads `.env` beside it (never overriding what the environment
 * already sets), calls its default export (an {@link AppFactory}) and boots the kernel. It never
 * listens. Every failure is an {@link AppLoadError} with a one-line message.
 */
export async function loadApp(options: LoadAppOptions = {}): Promise<Kernel> {
  const env = options.env ?? process.env
  const location = findApp(options.cwd ?? process.cwd(), env)
  const file = options.source ? location.file : await moduleToRun(location.file, env)
  // The source's folder, also when the compiled copy under `dist/` runs: the app's root
  // (`AppOptions.root`), so views, `public/`, `var/` and `.env` are the same built or not.
  const moduleDir = dirname(location.file)
  loadEnvFile(join(moduleDir, '.env'), env)
  const factory = await importFactory(file, location.from, env)
  let kernel = await build(factory, file, env, moduleDir)
  // The app root is only known once the factory ran; when it is not the module's folder, its .env
  // is the one `fw key:generate` writes, so load it and build again (nothing is booted yet).
  if (resolve(kernel.root) !== moduleDir && loadEnvFile(join(kernel.root, '.env'), env)) {
    kernel = await build(factory, file, env, moduleDir)
  }
  if (options.boot !== false) {
    try {
      await kernel.boot()
    } catch (cause) {
      throw new AppLoadError(`The app failed to boot: ${describe(cause)}`, { cause })
    }
  }
  return kernel
}
