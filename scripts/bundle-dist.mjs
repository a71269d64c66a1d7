#!/usr/bin/env node
// Bundles fw's built library (run by `npm run build`, after tsc): each package entry's `default`
// module (`dist/kernel/index.js`, `dist/plugins/<name>/index.js`, …, not the playground: it is an
// app) and the CLI (`dist/cli/cli.js`) become a few modules in `dist/bundle/`, split into shared
// chunks, instead of ~290 that Node resolves, reads and compiles one by one: most of a built
// `fw route:list`'s time and a third of `fw serve`'s (bench/app-start.ts). package.json's
// `exports` name the bundled modules; the `types` stay tsc's. Packages stay imports (resolved
// from `dist/bundle/` as from `dist/`). A module's `import.meta.url`, `.dirname` and `.filename`
// keep naming its file under `dist/` (which tsc wrote and the package ships), so what it finds
// beside itself (templates, workers, assets) is found as before. Source maps chain to the
// TypeScript sources through tsc's.
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const out = join(dist, 'bundle')
/** Package entries that are apps, not part of the library. */
const APPS = new Set(['./playground', './package.json'])

/** `dist/plugins/auth/index.js` → `plugins-auth-index`: every output sits in `dist/bundle/`. */
const flatName = (file) => relative(dist, file).replace(/\.js$/, '').replaceAll('/', '-')

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const sources = [join(dist, 'cli', 'cli.js')]
for (const [entry, target] of Object.entries(pkg.exports)) {
  if (APPS.has(entry) || typeof target !== 'object') continue
  const built = target['fw-source'].replace(/^\.\//, '').replace(/\.ts$/, '.js')
  sources.push(join(dist, built))
  const bundled = `./dist/bundle/${flatName(join(dist, built))}.js`
  if (target.default !== bundled) {
    throw new Error(`package.json's exports["${entry}"].default must be ${bundled}`)
  }
}

/**
 * fw's own entries imported by name (`import … from 'fw'`) resolve through the exports, which name
 * this bundle: they are compiled in from dist/ instead.
 */
const selfPlugin = {
  name: 'fw-self',
  setup(build) {
    build.onResolve({ filter: /^fw(?:\/|$)/ }, ({ path }) => {
      const target = pkg.exports[`.${path.slice(2)}`]
      if (typeof target !== 'object' || APPS.has(`.${path.slice(2)}`)) {
        return { errors: [{ text: `${path} is not a package entry of fw's library` }] }
      }
      return { path: join(dist, target['fw-source'].replace(/^\.\//, '').replace(/\.ts$/, '.js')) }
    })
  },
}

/** The module's own place under dist/, where its `import.meta` points once bundled. */
const importMetaPlugin = {
  name: 'fw-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, ({ path }) => {
      if (path.includes('/node_modules/')) return undefined
      const source = readFileSync(path, 'utf8')
      if (!/import\.meta\.(?:url|dirname|filename)\b/.test(source)) return undefined
      const own = JSON.stringify(relative(out, path))
      // On the module's first line, so that tsc's source map still lines up. Occurrences inside
      // quotes (esbuild.js defines them for tsx's compiles) are left alone.
      const contents =
        `import { fileURLToPath as __fwToPath } from 'node:url'; ` +
        `const __fwUrl = new URL(${own}, import.meta.url).href; ` +
        source
          .replace(/(?<!['"])import\.meta\.url\b/g, '__fwUrl')
          .replace(/(?<!['"])import\.meta\.filename\b/g, '__fwToPath(__fwUrl)')
          .replace(/(?<!['"])import\.meta\.dirname\b/g, "__fwToPath(new URL('.', __fwUrl))")
      return { contents, loader: 'js', resolveDir: dirname(path) }
    })
  },
}

/**
 * MikroORM's packages ship CommonJS behind an ESM wrapper (`index.mjs` re-exporting `index.js`).
 * Imported from ESM, Node lexes each CommonJS file for its names, following every re-export: for
 * MikroORM, its whole library, ~0.3-0.5 s of a start that opens the database (`fw dev`, `fw serve`:
 * bench/app-start.ts). Required, none is lexed. So the bundle requires them: each import becomes a
 * module that requires the package and exports its names (read here from the installed package).
 * The instance is the one an ESM import gets, since the wrapper imports that same CommonJS module
 * (test/e2e/packed-install.test.ts).
 */
const REQUIRED = /^(?:@mikro-orm\/(?:core|knex|postgresql)|mikro-orm-pglite)$/
const requireFromRoot = createRequire(join(root, 'package.json'))
const requirePlugin = {
  name: 'fw-require',
  setup(build) {
    build.onResolve({ filter: REQUIRED }, ({ path }) => ({ path, namespace: 'fw-require' }))
    build.onLoad({ filter: /.*/, namespace: 'fw-require' }, ({ path }) => {
      const names = Object.keys(requireFromRoot(path)).filter(
        (name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name),
      )
      const contents = [
        `import { createRequire } from 'node:module'`,
        `const required = createRequire(import.meta.url)(${JSON.stringify(path)})`,
        `export default required`,
        ...names.map((name) => `export const ${name} = required.${name}`),
      ].join('\n')
      return { contents, loader: 'js', resolveDir: root }
    })
  },
}

rmSync(out, { recursive: true, force: true })
const entryPoints = Object.fromEntries(sources.map((file) => [flatName(file), file]))
await esbuild.build({
  absWorkingDir: root,
  entryPoints,
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  keepNames: true,
  sourcemap: 'linked',
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
  plugins: [selfPlugin, requirePlugin, importMetaPlugin],
})
