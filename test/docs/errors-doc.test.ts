import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ERRORS_DOC, expectedErrorsDoc, fwRegistries } from '../../scripts/errors-doc.js'
import { repoRoot } from './examples.js'

const test = suite('errors doc')

/** Files under `dir` whose names end in one of `extensions`. */
function filesUnder(dir: string, extensions: readonly string[]): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory())
      return entry === 'node_modules' || entry === 'var' ? [] : filesUnder(path, extensions)
    return extensions.some((e) => entry.endsWith(e)) ? [path] : []
  })
}

test('docs/errors.md lists every code of every registry as generated (npm run docs:errors)', async () => {
  const expected = await expectedErrorsDoc()
  const actual = readFileSync(ERRORS_DOC, 'utf8')
  assert.ok(
    actual === expected,
    'docs/errors.md is stale: run `npm run docs:errors` and commit the result',
  )
})

test('no code is defined twice, and each reads FW_ERR_<AREA>_<WHAT>', async () => {
  const seen = new Map<string, string>()
  for (const registry of await fwRegistries()) {
    for (const code of Object.keys(registry.definitions)) {
      assert.ok(!seen.has(code), `${code}: defined by ${seen.get(code)} and ${registry.title}`)
      assert.match(code, /^FW_ERR_[A-Z0-9]+(_[A-Z0-9]+)+$/)
      seen.set(code, registry.title)
    }
  }
  assert.ok(seen.size >= 40, `only ${seen.size} codes found`)
})

test('every code named in the sources and in the docs prose is a registered code', async () => {
  const registered = new Set((await fwRegistries()).flatMap((r) => Object.keys(r.definitions)))
  const sources = ['kernel', 'plugins', 'cli', 'playground'].flatMap((dir) =>
    filesUnder(join(repoRoot, dir), ['.ts']),
  )
  const docs = [
    ...filesUnder(join(repoRoot, 'docs'), ['.md']),
    ...filesUnder(join(repoRoot, 'plugins'), ['README.md']),
    join(repoRoot, 'README.md'),
    join(repoRoot, 'CONTRIBUTING.md'),
  ]
  const unknown: string[] = []
  for (const file of [...sources, ...docs]) {
    let text = readFileSync(file, 'utf8')
    // Code blocks of the docs define codes of their own (a plugin's, an example's).
    if (file.endsWith('.md')) text = text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '')
    for (const match of text.matchAll(/FW_ERR_[A-Z0-9_]*[A-Z0-9]/g)) {
      const code = match[0]
      // `FW_ERR_HTTP_*`, `FW_ERR_<AREA>_<WHAT>`: a family, not a code.
      if (text[match.index + code.length] === '_') continue
      // The guide's example plugin and the scaffold's `hello-stats` define their own.
      if (!registered.has(code) && !/^FW_ERR_(GREETER|HELLO_STATS)_/.test(code))
        unknown.push(`${relative(repoRoot, file)}: ${code}`)
    }
  }
  assert.equal(unknown, [])
})

test.run()
