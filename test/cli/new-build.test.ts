// The `build` script `fw new` writes, run for real by npm in a generated app: it starts from an
// empty dist/, so a controller deleted from the sources does not live on in dist/ (where
// `npm start` and `fw route:list` would still load it).
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../docs/examples.js'
import { fwIn, newApp, workFolder } from './new-app.js'

const test = suite('fw new: npm run build')
const run = promisify(execFile)

/** `npm run build` in `dir`: its output, or the failure with its output. */
async function build(dir: string): Promise<string> {
  const { FW_APP: _a, DATABASE_URL: _d, ...env } = process.env
  try {
    const { stdout, stderr } = await run('npm', ['run', 'build'], { cwd: dir, env })
    return stdout + stderr
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`npm run build failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error })
  }
}

test('builds from an empty dist/: a deleted controller and a stray file are gone', async () => {
  const dir = await newApp(workFolder(), 'shelf')
  // npm puts node_modules/.bin on the script's PATH: the linked app needs tsc there.
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(
    join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
    join(dir, 'node_modules', '.bin', 'tsc'),
  )
  const made = await fwIn(dir, ['make:controller', 'gone'])
  assert.is(made.code, 0, made.stderr)
  await build(dir)
  assert.ok(existsSync(join(dir, 'dist', 'controllers', 'gone.js')), 'built once')
  mkdirSync(join(dir, 'dist', 'migrations'), { recursive: true })
  writeFileSync(join(dir, 'dist', 'migrations', 'Migration20200101000000_stray.js'), '')

  rmSync(join(dir, 'controllers', 'gone.ts'))
  await build(dir)
  assert.not.ok(existsSync(join(dir, 'dist', 'controllers', 'gone.js')), 'deleted controller')
  assert.not.ok(existsSync(join(dir, 'dist', 'controllers', 'gone.js.map')), 'its source map')
  assert.not.ok(
    existsSync(join(dir, 'dist', 'migrations', 'Migration20200101000000_stray.js')),
    'stray migration',
  )
  // The rest is built again.
  assert.ok(existsSync(join(dir, 'dist', 'app.js')))
  assert.match(readFileSync(join(dir, 'dist', 'controllers', 'home.js'), 'utf8'), 'export default')
})

test.run()
