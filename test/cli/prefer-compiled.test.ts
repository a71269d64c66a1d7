// The built CLI runs a TypeScript app's compiled `dist/` copy while no source of the app changed
// since the build: files the running app writes (its OpenAPI document under `public/`, logs and
// caches under `var/`) are not sources and do not send the CLI back to the TypeScript.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { preferCompiled } from '../../cli/prefer-compiled.js'

const test = suite<{ root: string; source: string; compiled: string }>('cli: prefer compiled')

/** Writes `file` (and its folder) with a modification time `at` seconds after the epoch. */
function write(file: string, at: number): void {
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, '')
  utimesSync(file, at, at)
}

test.before.each((context) => {
  context.root = mkdtempSync(join(tmpdir(), 'fw-compiled-'))
  context.source = join(context.root, 'app.ts')
  context.compiled = join(context.root, 'dist', 'app.js')
  write(join(context.root, 'package.json'), 1000)
  write(context.source, 1000)
  write(join(context.root, 'controllers', 'home.ts'), 1000)
  write(context.compiled, 2000)
})
test.after.each(({ root }) => rmSync(root, { recursive: true, force: true }))

test('runs the build when no source changed after it', ({ source, compiled }) => {
  assert.is(preferCompiled(source, {}, false), compiled)
})

test('runs the sources when one changed after the build', ({ root, source }) => {
  write(join(root, 'controllers', 'home.ts'), 3000)
  assert.is(preferCompiled(source, {}, false), source)
})

test('a document the app wrote under public/ or var/ leaves the build current', ({
  root,
  source,
  compiled,
}) => {
  write(join(root, 'public', 'api', 'openapi.json'), 3000)
  write(join(root, 'var', 'cache', 'fw-commands.json'), 3000)
  assert.is(preferCompiled(source, {}, false), compiled)
})

test.run()
