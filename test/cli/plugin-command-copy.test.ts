import { cpSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from './temp-app.js'

// A plugin package that installs clipanion itself extends a copy that is not fw's. Its command
// used to vanish with "must be a clipanion Command subclass"; now the message names the cause, and
// `fw/cli` gives plugins fw's own Command and Option.

const test = suite('plugin commands and clipanion copies')
let app: TempApp

test.before(() => {
  app = createTempApp()
  // A second copy of clipanion (and typanion, which it needs) in the app's own node_modules.
  const modules = join(app.root, 'node_modules')
  mkdirSync(modules)
  const installed = (name: string): string =>
    join(fileURLToPath(new URL('../../node_modules/', import.meta.url)), name)
  for (const name of ['clipanion', 'typanion']) {
    cpSync(installed(name), join(modules, name), { recursive: true })
  }
  const copy = pathToFileURL(join(modules, 'clipanion', 'lib', 'advanced', 'index.js')).href
  const preamble = `import { Command as OtherCommand } from ${JSON.stringify(copy)}
import { Command, Option, pluginCommand } from ${JSON.stringify(import.meta.resolve('fw/cli'))}
class Foreign extends OtherCommand {
  static paths = [['foreign']]
  async execute() { this.context.stdout.write('foreign ran\\n') }
}
class Greet extends Command {
  static paths = [['greet']]
  who = Option.String('--who', 'world')
  async execute() { this.context.stdout.write('hello ' + this.who + '\\n') }
}
class Wave extends pluginCommand('wave', { category: 'Greeter', description: 'Wave at someone' }) {
  who = Option.String('--who', 'world')
  async execute() { this.context.stdout.write('waving at ' + this.who + '\\n') }
}
`
  app.rewrite({ preamble, setup: '  kernel.command(Foreign).command(Greet).command(Wave)' })
})
test.after(() => app.remove())

test('a command extending another copy of clipanion is refused with the cause and the fix', async () => {
  const { code, stderr } = await runCli(['foreign'], { env: app.env })
  assert.is.not(code, 0)
  assert.match(stderr, "fw: skipping Foreign: it extends another copy of clipanion than fw's")
  assert.match(stderr, "Import Command and Option from 'fw/cli'")
})

test("a command built on fw/cli's Command and Option runs, options and all", async () => {
  const { code, stdout, stderr } = await runCli(['greet', '--who', 'you'], { env: app.env })
  assert.is(code, 0, stderr)
  assert.is(stdout, 'hello you\n')
})

test('a command on pluginCommand() has its path and usage, and runs', async () => {
  const run = await runCli(['wave', '--who', 'you'], { env: app.env })
  assert.is(run.code, 0, run.stderr)
  assert.is(run.stdout, 'waving at you\n')
  const help = await runCli(['wave', '--help'], { env: app.env })
  assert.is(help.code, 0, help.stderr)
  assert.match(help.stdout, 'Wave at someone')
  const all = await runCli(['--help'], { env: app.env })
  assert.match(all.stdout, /Greeter[\s\S]*wave/)
})

test.run()
