// `fw create:plugin`: the CLI as a child process scaffolds a package outside any app; the package
// then type-checks and passes its own tests (linked to this fw, as the docs-examples test links
// the guide's package: no network), and bad names or a busy folder are refused.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import {
  formatProblems,
  repoRoot,
  runExample,
  typeCheck,
  writeExample,
  type Example,
} from '../docs/examples.js'

const test = suite('fw create:plugin')
const work = mkdtempSync(join(tmpdir(), 'fw-create-plugin-'))

/** The scaffolded package as an example: its files, relative paths. */
function asExample(dir: string, name: string): Example {
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((path) => ({ path, content: readFileSync(join(dir, path), 'utf8'), line: 1, run: false }))
  return { name, source: dir, files }
}

test('scaffolds a package, outside any app, that type-checks and passes its own tests', async () => {
  const { code, stdout, stderr } = await runCli(['create:plugin', 'visits'], {
    cwd: work,
    timeoutMs: 60_000,
  })
  assert.is(code, 0, stderr)
  assert.match(stdout, 'Created fw-plugin-visits in fw-plugin-visits')
  const dir = join(work, 'fw-plugin-visits')
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string
    devDependencies: Record<string, string>
    peerDependencies: Record<string, string>
  }
  assert.is(pkg.name, 'fw-plugin-visits')
  assert.is(pkg.devDependencies.fw, `file:${repoRoot.replace(/\/$/, '')}`)
  assert.ok(pkg.peerDependencies.fw)
  const index = readFileSync(join(dir, 'src/index.ts'), 'utf8')
  assert.match(index, "name: 'visits'")
  assert.not.match(index, /greeter/i)
  for (const f of [
    'src/greet-command.ts',
    'src/health-check.ts',
    'test/visits.test.ts',
    'README.md',
  ])
    assert.ok(existsSync(join(dir, f)), f)

  const linked = writeExample(asExample(dir, 'visits'), join(work, 'linked'))
  const problems = typeCheck(linked)
  assert.equal(problems, [], formatProblems(problems))
  const run = await runExample(asExample(dir, 'visits'), linked, 120_000)
  assert.ok(run, 'the package has tests')
  assert.is(run.code, 0, run.output)
})

test('refuses a name that cannot be a config key or identifier, and a busy folder', async () => {
  for (const bad of ['Visits', 'rate-limit', '1st', '']) {
    const { code, stderr } = await runCli(['create:plugin', bad], { cwd: work })
    assert.is(code, 1, bad)
    assert.match(stderr, 'is not a usable plugin name', bad)
  }
  mkdirSync(join(work, 'busy'))
  writeFileSync(join(work, 'busy', 'keep.txt'), 'mine')
  const busy = await runCli(['create:plugin', 'visits', '--dir', 'busy'], { cwd: work })
  assert.is(busy.code, 1)
  assert.match(busy.stderr, 'exists and is not empty')
  assert.equal(readdirSync(join(work, 'busy')), ['keep.txt'])
})

test.run()
