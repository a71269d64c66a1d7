// A TypeScript app built with tsc runs compiled (`dist/app.js`) under the compiled CLI, and keeps
// its root: the CLI passes the source's folder to the factory (`AppOptions.root`), so `.env`,
// views, `public/` and `var/` are the app folder's, not `dist/`'s. `fw key:generate` writes `.env`
// into the kernel's root: where it lands shows the root.
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runBuiltCli } from './built-cli.js'
import { createTempPackage } from '../e2e/dev-process.js'

const test = suite('compiled app keeps its root')

/** The app module, TypeScript and compiled alike: rooted where the CLI says, else beside itself. */
const APP = `import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel } from 'fw'
const here = dirname(fileURLToPath(import.meta.url))
export default ({ env, root = here } = {}) => {
  const kernel = createKernel({ root, env })
  return kernel
}
`

test('the compiled module runs, rooted in the source folder', async () => {
  const app = createTempPackage({ app: './app.ts', files: { 'app.ts': APP } })
  try {
    mkdirSync(join(app.dir, 'dist'))
    // The compiled copy leaves a mark beside itself when the CLI calls it.
    const marked = APP.replace(
      'export default ({ env, root = here } = {}) => {',
      "import { writeFileSync } from 'node:fs'\nexport default ({ env, root = here } = {}) => {\n  writeFileSync(here + '/ran', '')",
    )
    writeFileSync(join(app.dir, 'dist', 'app.js'), marked)
    // Built after the last edit of the sources: the CLI prefers it.
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(app.dir, 'dist', 'app.js'), later, later)
    const { code, output } = await runBuiltCli(app.dir, ['key:generate'])
    assert.is(code, 0, output)
    assert.ok(existsSync(join(app.dir, 'dist', 'ran')), 'the compiled module ran')
    assert.ok(existsSync(join(app.dir, '.env')), `.env in the app folder:\n${output}`)
    assert.not.ok(existsSync(join(app.dir, 'dist', '.env')), 'nothing written under dist/')
  } finally {
    app.remove()
  }
})

test.run()
