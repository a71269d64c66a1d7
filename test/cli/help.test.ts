import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'

const test = suite('cli')
const BUILTINS = [
  'route:list',
  'serve',
  'key:generate',
  'down',
  'up',
  'create:plugin',
  'new',
  'make:controller',
  'make:entity',
  'make:migration',
  'make:plugin',
  'make:test',
]

test('lists every built-in command on --help and exits 0', async () => {
  const { code, stdout } = await runCli(['--help'])
  assert.is(code, 0)
  for (const name of BUILTINS) assert.match(stdout, `fw ${name}`)
})

test('prints the usage when run without arguments', async () => {
  const { code, stdout } = await runCli([])
  assert.is(code, 0)
  assert.match(stdout, 'fw route:list')
})

test("prints a command's detailed usage on <command> --help", async () => {
  for (const name of BUILTINS) {
    const { code, stdout } = await runCli([name, '--help'])
    assert.is(code, 0, name)
    assert.match(stdout, `$ fw ${name}`, name)
  }
})

test("names option values after the option, in the list and in a command's usage", async () => {
  const { stdout } = await runCli(['--help'])
  assert.match(stdout, 'fw serve [--port <port>] [--host <host>] [--workers <workers>]')
  // A plugin's command (the playground's debug plugin), listed from the app.
  assert.match(stdout, 'fw debug:token [--ttl <ttl>] [--url <url>]')
  assert.not.match(stdout, '#0')
  for (const [argv, line] of [
    [['serve', '--help'], '--drain-timeout <drain-timeout>'],
    [['down', '--help'], '--retry <retry>'],
    [['debug:token', '--help'], '--ttl <ttl>'],
  ] as const) {
    const help = await runCli([...argv])
    assert.is(help.code, 0, argv[0])
    assert.match(help.stdout, line, argv[0])
    assert.not.match(help.stdout, '#0', argv[0])
  }
})

test('prints the version of fw on --version', async () => {
  const { code, stdout } = await runCli(['--version'])
  assert.is(code, 0)
  assert.match(stdout.trim(), /^\d+\.\d+\.\d+/)
})

test('exits 1 with one line naming an unknown command', async () => {
  const { code, stdout, stderr } = await runCli(['no-such-command'])
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.is(stderr.trim().split('\n').length, 1)
  assert.match(stderr, "Unknown command 'no-such-command'")
})

test('suggests the command a typo meant', async () => {
  const { code, stderr } = await runCli(['route:lsit'])
  assert.is(code, 1)
  assert.match(stderr, "Did you mean 'fw route:list'?")
})

test('exits 1 with one line for an option the command does not have', async () => {
  const { code, stderr } = await runCli(['route:list', '--nope'])
  assert.is(code, 1)
  assert.is(stderr.trim().split('\n').length, 1)
  assert.match(stderr, '--nope')
})

test.run()
