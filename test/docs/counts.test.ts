// The numbers the docs state about the kernel and the playground are counted, not remembered: the
// hooks `kernel.hooks` holds (docs/hooks.md) and fw's plugins the playground registers (README.md).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, type PluginName } from 'fw'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import createApp from '../../playground/app.js'
import { repoRoot } from './examples.js'

const test = suite('counts in the docs')

const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
].concat(['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen'])

/** The number a phrase in a document states, as a word ("nine") or in digits. */
function statedIn(file: string, phrase: RegExp): number {
  const match = phrase.exec(readFileSync(join(repoRoot, file), 'utf8'))
  if (match?.[1] === undefined) throw new Error(`${file} no longer says ${phrase}`)
  const word = match[1].toLowerCase()
  return /^\d+$/.test(word) ? Number(word) : WORDS.indexOf(word)
}

/** fw's plugins, as the package exports them (`./plugins/<name>`, sub-paths aside). */
function builtInPlugins(): string[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>
  }
  return Object.keys(manifest.exports)
    .map((key) => /^\.\/plugins\/([^/]+)$/.exec(key)?.[1])
    .filter((name): name is string => name !== undefined)
}

test('docs/hooks.md states how many hooks the kernel has', () => {
  const hooks = Object.keys(createKernel().hooks).length
  assert.is(statedIn('docs/hooks.md', /holding (\w+) typed hooks/), hooks)
})

test("the README states how many of fw's plugins the playground registers", () => {
  const kernel = createApp({ env: { DATABASE_URL: 'pglite://memory' } })
  const used = builtInPlugins().filter((name) => kernel.hasPlugin(name as PluginName))
  assert.ok(used.length > 0)
  assert.is(statedIn('README.md', /The whole playground, (\w+) of fw's plugins/), used.length)
})

test.run()
