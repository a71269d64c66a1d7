// `fw` where no app is found (no FW_APP, no package.json with "fw.app" from the cwd up), as a
// newcomer runs it before `fw new`: the CLI as a child process lists the commands that run there
// and says how fw finds an app; an unknown command says so with a suggestion; a command that needs
// an app keeps its clear error.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'

const test = suite('fw outside an app')
const outside = mkdtempSync(join(tmpdir(), 'fw-outside-'))
// A package.json without "fw": a folder of some other project is still outside an app.
writeFileSync(join(outside, 'package.json'), '{ "name": "not-an-app" }\n')
const here = { cwd: outside, env: { FW_APP: '' } }

test('`fw --help` and bare `fw` list the commands that run outside an app, and exit 0', async () => {
  for (const argv of [['--help'], [], ['-h']]) {
    const { code, stdout, stderr } = await runCli(argv, here)
    assert.is(code, 0, `${argv.join(' ')}: ${stderr}`)
    assert.is(stderr, '', argv.join(' '))
    assert.match(stdout, 'fw new [--fw <fw>] <dir>')
    assert.match(stdout, 'fw create:plugin')
    // The commands that need an app are named as such, not offered as runnable here.
    assert.not.match(stdout, /^ {2}fw route:list/m)
    assert.match(stdout, 'Inside an app')
    assert.match(stdout, 'fw route:list')
    assert.match(stdout, '"fw": { "app": "./app.ts" }')
    assert.match(stdout, 'FW_APP')
    assert.match(stdout, "'fw new <dir>'")
  }
})

test('an unknown command outside an app says so on one line, suggests, and exits 1', async () => {
  const { code, stdout, stderr } = await runCli(['neww', 'x'], here)
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.is(stderr.trim().split('\n').length, 1, stderr)
  assert.match(stderr, "fw: Unknown command 'neww'. Did you mean 'fw new'?")
  assert.match(stderr, 'No fw app was found from this folder')
  // A command of a plugin is unknown here, and the line says where it runs.
  const migrate = await runCli(['migrate'], here)
  assert.is(migrate.code, 1)
  assert.match(migrate.stderr, "Unknown command 'migrate'")
  assert.match(migrate.stderr, 'run inside one')
})

test('a command that needs an app keeps its error outside one', async () => {
  const { code, stdout, stderr } = await runCli(['route:list'], here)
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.match(stderr, 'fw: No fw app found: set FW_APP')
})

test('a broken app is not "outside": loading it says why', async () => {
  const broken = mkdtempSync(join(tmpdir(), 'fw-broken-'))
  writeFileSync(join(broken, 'package.json'), '{ "fw": { "app": "./missing.ts" } }\n')
  const { code, stderr } = await runCli(['--help'], { cwd: broken, env: { FW_APP: '' } })
  assert.is(code, 1)
  assert.match(stderr, 'does not exist')
})

test.run()
