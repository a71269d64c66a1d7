// The Conduit example is built on fw's public API only: every import of its sources is a Node
// module, `fw`, `fw/plugins/<name>`, `fw/testing`, `fw/cli`, or one of its own files (a relative
// path that stays inside the example). ESLint's `no-restricted-imports` says the same for package
// names as one edits; this also catches `../../kernel/…`.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const example = resolve(dirname(fileURLToPath(import.meta.url)), '../../examples/conduit')
const PUBLIC = /^(node:.+|fw|fw\/plugins\/[a-z-]+|fw\/testing|fw\/cli)$/
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'var' ? [] : sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** What is wrong with `specifier` imported from `file`, or undefined. */
function offence(file: string, specifier: string): string | undefined {
  if (PUBLIC.test(specifier)) return undefined
  if (specifier.startsWith('./') || specifier.startsWith('../')) {
    const target = relative(example, resolve(dirname(file), specifier))
    return target.startsWith('..') ? `${specifier} leaves the example` : undefined
  }
  return `${specifier} is not fw's public API`
}

const test = suite('conduit example: public API only')

test('every import of examples/conduit is fw, fw/plugins/*, fw/testing, fw/cli, node: or its own', () => {
  const files = sources(example)
  assert.ok(files.length >= 8, files.join())
  const found: string[] = []
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = m[1] ?? m[2]!
      const wrong = offence(file, specifier)
      if (wrong !== undefined) found.push(`${relative(example, file)}: ${wrong}`)
    }
  }
  assert.equal(found, [])
})

test('the check refuses fw internals, other packages and paths out of the example', () => {
  const file = join(example, 'controllers', 'users.ts')
  assert.is(offence(file, '../data.js'), undefined)
  assert.is(offence(file, 'fw/plugins/auth'), undefined)
  assert.ok(offence(file, '../../../kernel/index.js'))
  assert.ok(offence(file, 'fw/playground'))
  assert.ok(offence(file, 'pg'))
  assert.ok(offence(file, '@mikro-orm/core'))
})

test.run()
