// This tree against another checkout (the tree before a change), both serving the playground as
// `fw serve` does (built CLI, production, no grant, PGlite in a temp dir each), `GET /_demo/ping`
// in interleaved rounds: how an issue's "ping unchanged in one run" is measured. The other
// checkout must be built (`git worktree add ../before <commit> && cd ../before && npm ci` or a
// node_modules symlink, then `npm run build`); so must this one (`npm run build`).
// Run: node --import tsx -C fw-source bench/before-after.ts --base ../before [--rounds 5]
//        [--seconds 3]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { root } from './lib/playground-child.js'
import { compareVariants } from './lib/serve-variants.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
  },
})
if (values.base === undefined) {
  console.error('before-after: --base <checkout> is required (a built checkout of the tree before)')
  process.exit(2)
}
const dirs = [mkdtempSync(join(tmpdir(), 'fw-after-')), mkdtempSync(join(tmpdir(), 'fw-before-'))]
try {
  await compareVariants({
    title: `before-after (${resolve(values.base)})`,
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    variants: [
      {
        name: 'before',
        checkout: resolve(values.base),
        ownApp: true,
        env: { DATABASE_URL: `pglite://${dirs[1]}` },
      },
      { name: 'after', checkout: root, ownApp: true, env: { DATABASE_URL: `pglite://${dirs[0]}` } },
    ],
    ratios: [['after', 'before', 0.97]],
  })
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
}
