import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

// scripts/check-cycles.mjs (run by `npm run lint`) on small trees: every import between plugins is
// declared, and a plugin listed as optional lends no value but through a module that skips its
// index.ts.
const test = suite('lint: plugin-to-plugin imports are declared')
const script = join(dirname(fileURLToPath(import.meta.url)), '../../scripts/check-cycles.mjs')

function check(files: Record<string, string>): { code: number; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'fw-imports-'))
  const entries = ['a', 'b', 'c'].map((n) => [
    `./plugins/${n}`,
    { 'fw-source': `./plugins/${n}/index.ts` },
  ])
  entries.push(['./plugins/b/shared', { 'fw-source': './plugins/b/shared.ts' }])
  const all: Record<string, string> = {
    'package.json': JSON.stringify({ exports: Object.fromEntries(entries) }),
    'plugins/b/index.ts': "export const b = definePlugin({ name: 'b', setup() {} })\n",
    'plugins/b/shared.ts': 'export const shared = 1\n',
    'plugins/c/index.ts': "export const c = definePlugin({ name: 'c', setup() {} })\n",
    ...files,
  }
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  const run = spawnSync(process.execPath, [script, root], { encoding: 'utf8' })
  rmSync(root, { recursive: true, force: true })
  return { code: run.status ?? 1, out: run.stdout + run.stderr }
}

const plugin = (deps: string) => `export default definePlugin({ name: 'a', ${deps}, setup() {} })\n`

// One row a tree: plugin a's index.ts and a side module of it, the exit code, what the output
// names, and what it must not.
interface Case {
  readonly name: string
  readonly index: string
  readonly x: string
  readonly code: 0 | 1
  readonly says?: string
  readonly saysNot?: string
}
const CASES: readonly Case[] = [
  {
    name: 'declared imports pass: values from a required plugin, types or a side module from an optional one',
    index:
      "import { b } from 'fw/plugins/b'\n" + plugin("dependsOn: ['b'], optionalDependsOn: ['c']"),
    x: "import type { C } from 'fw/plugins/c'\nimport { shared } from 'fw/plugins/b/shared'\n",
    code: 0,
  },
  {
    name: 'an import of a plugin that is not declared fails, types included',
    index: plugin("dependsOn: ['b']"),
    x: "import type { C } from 'fw/plugins/c'\n",
    code: 1,
    says: "plugins/a/x.ts imports fw/plugins/c, but plugin 'a' does not list 'c'",
  },
  {
    name: "a value from an optional plugin's index fails; a side module of it passes",
    index: plugin("optionalDependsOn: ['b']"),
    x: "import { b } from 'fw/plugins/b'\nimport { shared } from 'fw/plugins/b/shared'\n",
    code: 1,
    says: "plugins/a/x.ts imports fw/plugins/b: a value from 'b'",
    saysNot: 'fw/plugins/b/shared',
  },
  {
    name: 'a relative import into another plugin counts as importing it',
    index: plugin('setup2: 1'),
    x: "import { shared } from '../b/shared.js'\n",
    code: 1,
    says: "does not list 'b'",
  },
]

for (const c of CASES)
  test(c.name, () => {
    const run = check({ 'plugins/a/index.ts': c.index, 'plugins/a/x.ts': c.x })
    assert.is(run.code, c.code, run.out)
    if (c.says !== undefined) assert.match(run.out, c.says)
    if (c.saysNot !== undefined) assert.not.match(run.out, c.saysNot)
  })

test.run()
