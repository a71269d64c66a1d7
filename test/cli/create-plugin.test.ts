// `fw create:plugin`: the CLI as a child process scaffolds a package outside any app; the package
// then type-checks and passes its own tests (linked to this fw, as the docs-examples test links
// the guide's package: no network), and bad names or a busy folder are refused.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { checkExample, repoRoot, type Example } from '../docs/examples.js'

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
  // An npm-style name with a hyphen: the plugin keeps it, the config area and the health check
  // take it with `_`, identifiers in camelCase, variables and error codes in capitals.
  const { code, stdout, stderr } = await runCli(['create:plugin', 'hello-stats'], {
    cwd: work,
    timeoutMs: 60_000,
  })
  assert.is(code, 0, stderr)
  assert.match(stdout, 'Created fw-plugin-hello-stats in fw-plugin-hello-stats')
  const dir = join(work, 'fw-plugin-hello-stats')
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string
    description: string
    devDependencies: Record<string, string>
    peerDependencies: Record<string, string>
  }
  assert.is(pkg.name, 'fw-plugin-hello-stats')
  assert.is(pkg.description, 'fw-plugin-hello-stats: an fw plugin')
  assert.is(pkg.devDependencies.fw, `file:${repoRoot.replace(/\/$/, '')}`)
  assert.ok(pkg.peerDependencies.fw)
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8')
  const index = read('src/index.ts')
  for (const expected of [
    "name: 'hello-stats'",
    "'hello-stats': HelloStatsApi",
    'hello_stats: {',
    "defaults: { hello_stats: { greeting: 'Hello' } }",
    "env: { 'hello_stats.greeting': 'HELLO_STATS_GREETING' }",
    'kernel.config.hello_stats.greeting',
    "ctx.log.record('hello-stats.greeted'",
    "'x-hello-stats-queries'",
    "helloStatsErrors.error('FW_ERR_HELLO_STATS_PREFIX'",
    'export const helloStats = definePlugin',
  ])
    assert.ok(index.includes(expected), expected)
  assert.match(read('src/health-check.ts'), "name: 'hello_stats'")
  assert.match(read('src/greet-command.ts'), "[['hello-stats:greet']]")
  assert.match(read('src/errors.ts'), "The hello-stats plugin's prefix")
  assert.match(read('README.md'), '`hello_stats.greeting`')
  for (const f of [
    'src/index.ts',
    'src/errors.ts',
    'src/events.ts',
    'src/visits.ts',
    'src/greet-command.ts',
    'test/hello-stats.test.ts',
    'test/app.ts',
    'package.json',
  ]) {
    const text = read(f)
    assert.not.match(text, /greet(er|s visitors)/i, f)
    // no half-renamed spellings: `hello_statsErrors`, `x-hello_stats-`, `hello-stats's`
    assert.not.match(text, /hello_stats[A-Z]|x-hello_stats|hello-stats's|hello_stats's/, f)
  }

  const { result: run } = await checkExample(
    asExample(dir, 'hello-stats'),
    join(work, 'linked'),
    120_000,
  )
  assert.ok(run, 'the package has tests')
  assert.is(run.code, 0, run.output)
})

test('refuses a name that is not npm-style (lowercase, digits, single hyphens), and a busy folder', async () => {
  for (const bad of ['Visits', 'rate_limit', '1st', 'x-', 'a--b', '']) {
    const { code, stderr } = await runCli(['create:plugin', bad], { cwd: work })
    assert.is(code, 1, bad)
    assert.match(stderr, 'is not a usable plugin name', bad)
    assert.match(stderr, 'hello-stats', bad)
  }
  mkdirSync(join(work, 'busy'))
  writeFileSync(join(work, 'busy', 'keep.txt'), 'mine')
  const busy = await runCli(['create:plugin', 'visits', '--dir', 'busy'], { cwd: work })
  assert.is(busy.code, 1)
  assert.match(busy.stderr, 'exists and is not empty')
  assert.equal(readdirSync(join(work, 'busy')), ['keep.txt'])
})

test.run()
