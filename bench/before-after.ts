// This tree against another checkout (the tree before a change), both serving the playground as
// `fw serve` does (built CLI, production, no grant, PGlite in a temp dir each), `GET /_demo/ping`
// in interleaved rounds: how an issue's "ping unchanged in one run" is measured. The other
// checkout must be built (`git worktree add ../before <commit> && cd ../before && npm ci` or a
// node_modules symlink, then `npm run build`); so must this one (`npm run build`).
// With `--products`, `GET /api/v1/products/{id}` instead, both trees on one PostgreSQL database of
// the benchmark's own, seeded by a first start of this tree's playground (bench/lib/product-load.ts).
// Run: node --import tsx -C fw-source bench/before-after.ts --base ../before [--rounds 5]
//        [--seconds 3] [--products] [--target 0.97]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { fwCommand, root } from './lib/playground-child.js'
import { productsRoute, seededDatabase } from './lib/product-load.js'
import { compareVariants } from './lib/serve-variants.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    products: { type: 'boolean', default: false },
    target: { type: 'string', default: '0.97' },
  },
})
if (values.base === undefined) {
  console.error('before-after: --base <checkout> is required (a built checkout of the tree before)')
  process.exit(2)
}
const products = values.products ? await seededDatabase(fwCommand()) : undefined
const dirs = [mkdtempSync(join(tmpdir(), 'fw-after-')), mkdtempSync(join(tmpdir(), 'fw-before-'))]
const databaseUrl = (dir: string): string => products?.url ?? `pglite://${dir}`
try {
  await compareVariants({
    title: `before-after (${resolve(values.base)})`,
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    ...(products === undefined ? {} : { route: productsRoute() }),
    variants: [
      {
        name: 'before',
        checkout: resolve(values.base),
        ownApp: true,
        env: { DATABASE_URL: databaseUrl(dirs[1]!) },
      },
      { name: 'after', checkout: root, ownApp: true, env: { DATABASE_URL: databaseUrl(dirs[0]!) } },
    ],
    ratios: [['after', 'before', Number(values.target)]],
  })
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  await products?.drop()
}
