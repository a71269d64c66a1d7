import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

// The shape the request path keeps (issue "a lean request path … with one way to run hooks"):
// hooks run in one module, replies the kernel builds live in one module, and the kernel class
// stays small enough to read in one sitting, with no back-doors for its own modules.

const test = suite('kernel structure')
const root = fileURLToPath(new URL('../../', import.meta.url))

// Folders that hold no source of ours: installed packages, build output, test fixtures.
const SKIPPED = new Set(['node_modules', 'dist', 'fixtures', '__fixtures__'])

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? SKIPPED.has(entry.name)
        ? []
        : sources(join(dir, entry.name))
      : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')
        ? [join(dir, entry.name)]
        : [],
  )
}
const read = (file: string): string => readFileSync(join(root, file), 'utf8')

test('kernel/kernel.ts is under 300 lines and has no @internal members', () => {
  const text = read('kernel/kernel.ts')
  const lines = text.split('\n').length
  assert.ok(lines < 300, `kernel/kernel.ts has ${lines} lines`)
  assert.not.match(text, /@internal/)
})

// A file split by job reads in one sitting.
test('no source file under kernel/, plugins/, cli/ or playground/ is over 400 lines', () => {
  const long = ['kernel', 'plugins', 'cli', 'playground']
    .flatMap(sources)
    .map((file) => ({ file, lines: read(file).replace(/\n$/, '').split('\n').length }))
    .filter(({ lines }) => lines > 400)
    .map(({ file, lines }) => `${file} (${lines} lines)`)
  assert.equal(long, [], `over 400 lines: ${long.join(', ')}`)
})

test("only kernel/hook-runner.ts runs a hook; nothing calls tapable's own promise() or call()", () => {
  const runs = /\.(?:promise|callAsync|call)\(/
  for (const file of [...sources('kernel'), ...sources('plugins')]) {
    if (file === join('kernel', 'hook-runner.ts')) continue
    const offending = read(file)
      .split('\n')
      .filter((line) => /hooks\.\w+\.(?:promise|callAsync|call)\(/.test(line) && runs.test(line))
    assert.equal(offending, [], `${relative(root, join(root, file))} runs a hook itself`)
  }
})

test('every reply the kernel builds itself comes from kernel/error-replies.ts', () => {
  for (const file of sources('kernel')) {
    // error-page.ts is the page's template; error-replies.ts decides when it is the answer.
    if (
      file === join('kernel', 'error-replies.ts') ||
      file === join('kernel', 'http', 'error-page.ts')
    )
      continue
    assert.not.match(read(file), /errorPage\(/, `${file} builds an error page itself`)
  }
})

test.run()
