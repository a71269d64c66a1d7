import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite('plugin-commands')
let app: TempApp

// The commands live in the app module; clipanion is imported by the URL this process resolves.
const preamble = `import { Command, Option } from ${JSON.stringify(import.meta.resolve('clipanion'))}
class Greet extends Command {
  static paths = [['greet']]
  static usage = Command.Usage({ description: 'Say hello' })
  who = Option.String('--who', 'world')
  async execute() { this.context.stdout.write('hello ' + this.who + ' from ' + this.context.kernel.config.app.name + '\\n') }
}
class Boom extends Command {
  static paths = [['boom']]
  async execute() { throw new Error('the command broke') }
}
class Clash extends Command {
  static paths = [['serve']]
  async execute() {}
}`

test.before(() => {
  app = createTempApp({ preamble, setup: '  kernel.command(Greet).command(Boom).command(Clash)' })
})
test.after(() => app.remove())

test('runs a command a plugin contributed, with the kernel in its context', async () => {
  const { code, stdout } = await runCli(['greet', '--who', 'you'], { env: app.env })
  assert.is(code, 0)
  assert.is(stdout, 'hello you from fw\n')
})

test('lists contributed commands on --help', async () => {
  const { stdout } = await runCli(['--help'], { env: app.env })
  assert.match(stdout, 'fw greet')
  assert.match(stdout, 'Say hello')
})

test('skips a contributed command whose path is already taken, with a warning', async () => {
  const { code, stderr } = await runCli(['greet'], { env: app.env })
  assert.is(code, 0)
  assert.match(stderr, "'fw serve' is already a command")
})

test('reports an unexpected error on one line, without its stack, and exits 1', async () => {
  const { code, stdout, stderr } = await runCli(['boom'], { env: app.env })
  const lines = stderr
    .trim()
    .split('\n')
    .filter((l) => !l.includes('skipping'))
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.is(lines.length, 1)
  assert.match(lines[0]!, 'the command broke')
  assert.match(stderr, 'FW_DEBUG')
})

test('adds the stack of an unexpected error under FW_DEBUG', async () => {
  const { code, stderr } = await runCli(['boom'], { env: { ...app.env, FW_DEBUG: '1' } })
  assert.is(code, 1)
  assert.match(stderr, 'the command broke')
  assert.match(stderr, '    at ')
})

test.run()
