// The toolbar's built assets: one TypeScript source (./toolbar) bundled by esbuild into an inline
// script for server-rendered pages and an ES module for single-page applications, both written to
// `dist/toolbar/` with a content hash in their names (served by sirv, cached for a year).
// `npm run build` builds them; in a checkout whose toolbar sources changed since, the first
// plugin setup rebuilds them (esbuild is a dev dependency), so a developer never serves a stale
// toolbar.
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeFileAtomic } from 'fw'
import { debugErrors } from './errors.js'

/** The built toolbar. */
export interface ToolbarAssets {
  /** The folder sirv serves under `/_fw`. */
  readonly dir: string
  /** The classic script's text, safe to place inside a `<script>` element. */
  readonly inline: string
  /** File names (with their content hash) of the classic script and the ES module. */
  readonly script: string
  readonly module: string
}

interface Manifest {
  source: string
  script: string
  module: string
}

const MANIFEST = '.manifest.json'

/** The stable URL of the ES module (single-page applications import it). */
export const TOOLBAR_MODULE_PATH = '/_fw/debugbar.mjs'

/** The package root: the folder above this file holding fw's package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const pkg = join(dir, 'package.json')
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'fw'
    )
      return dir
    const up = dirname(dir)
    if (up === dir) throw debugErrors.error('FW_ERR_DEBUG_ASSETS', { built: true })
    dir = up
  }
}

/** A hash of the toolbar's sources (the toolbar folder and the kernel's redaction it bundles). */
function sourceHash(root: string): string | undefined {
  const dir = join(root, 'plugins', 'debug', 'toolbar')
  if (!existsSync(dir)) return undefined
  const hash = createHash('sha256')
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(dir, f))
  for (const f of [...files, join(root, 'kernel', 'redact.ts')])
    hash.update(relative(root, f)).update(readFileSync(f))
  return hash.digest('hex').slice(0, 16)
}

/**
 * JavaScript that cannot end the `<script>` element it is inlined into, nor open an HTML comment
 * in it: `</script` and `<!--` only ever appear inside strings or regular expressions in bundled
 * code, where `<\/` and `<\!` mean the same.
 */
export function inlineSafe(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--')
}

interface EsbuildLike {
  buildSync(options: Record<string, unknown>): { outputFiles?: { text: string }[] }
}

/** Builds both deliveries into `<root>/dist/toolbar` and returns the manifest. */
export function buildToolbar(root = packageRoot()): Manifest {
  let esbuild: EsbuildLike
  try {
    esbuild = createRequire(import.meta.url)('esbuild') as EsbuildLike
  } catch (cause) {
    throw debugErrors.error('FW_ERR_DEBUG_ASSETS', { built: false }, { cause })
  }
  const src = join(root, 'plugins', 'debug', 'toolbar')
  const common = {
    bundle: true,
    minify: true,
    write: false,
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    charset: 'utf8',
    legalComments: 'none',
    platform: 'browser',
    logLevel: 'silent',
  }
  const iife = esbuild.buildSync({
    ...common,
    entryPoints: [join(src, 'inline.ts')],
    format: 'iife',
  }).outputFiles![0]!.text
  const esm = esbuild.buildSync({ ...common, entryPoints: [join(src, 'module.ts')], format: 'esm' })
    .outputFiles![0]!.text
  const out = join(root, 'dist', 'toolbar')
  mkdirSync(out, { recursive: true })
  const named = (code: string, ext: string) =>
    `debugbar.${createHash('sha256').update(code).digest('hex').slice(0, 10)}.${ext}`
  const script = inlineSafe(iife)
  const manifest: Manifest = {
    source: sourceHash(root) ?? '',
    script: named(script, 'js'),
    module: named(esm, 'mjs'),
  }
  // Several processes may build at once (test runs): content-named files, a manifest replaced by
  // rename, and only builds older than ten minutes pruned, so no reader ever sees half a build.
  writeFileSync(join(out, manifest.script), script)
  writeFileSync(join(out, manifest.module), esm)
  writeFileAtomic(join(out, MANIFEST), JSON.stringify(manifest, null, 2))
  const old = Date.now() - 10 * 60_000
  for (const f of readdirSync(out))
    if (/^debugbar\./.test(f) && f !== manifest.script && f !== manifest.module)
      if (statSync(join(out, f)).mtimeMs < old) rmSync(join(out, f), { force: true })
  return manifest
}

let cached: ToolbarAssets | undefined

/** The built toolbar, rebuilt first when its sources changed (and esbuild is there to do it). */
export function toolbarAssets(): ToolbarAssets {
  if (cached !== undefined) return cached
  const root = packageRoot()
  const dir = join(root, 'dist', 'toolbar')
  let manifest: Manifest | undefined
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Manifest
  } catch {
    manifest = undefined
  }
  const source = sourceHash(root)
  if (manifest === undefined || (source !== undefined && manifest.source !== source))
    manifest = buildToolbar(root)
  cached = {
    dir,
    inline: readFileSync(join(dir, manifest.script), 'utf8'),
    script: manifest.script,
    module: manifest.module,
  }
  return cached
}
