// `fw --help` lists the commands plugins contribute from the manifest the last boot wrote
// (`var/cache/fw-commands.json` beside the app module), without loading the app; a change to the
// app's sources voids it. The CLI runs as a child process, as a user runs it.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTempApp, type TempApp, type TempAppSource } from './temp-app.js'

const test = suite<{ app: TempApp }>('cli: the command manifest')
const root = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(root, 'cli', 'bin.ts')

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `fw args` through tsx in a child process. */
function fw(args: string[], env: Record<string, string>, cwd = root): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', '-C', 'fw-source', bin, ...args], {
    cwd,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

/**
 * An app whose module appends a line to `loads.txt` each time it is imported, and whose factory
 * contributes a command `name` through a plugin.
 */
function source(marker: string, name: string, description: string): TempAppSource {
  return {
    preamble: `import { appendFileSync } from 'node:fs'
import { Command, Option } from ${JSON.stringify(import.meta.resolve('fw/cli'))}
import { definePlugin } from ${JSON.stringify(import.meta.resolve('fw'))}
appendFileSync(${JSON.stringify(marker)}, 'loaded\\n')
class Contributed extends Command {
  static paths = [[${JSON.stringify(name)}]]
  static usage = Command.Usage({ category: 'Demo', description: ${JSON.stringify(description)} })
  who = Option.String('--who', 'world')
  async execute() { this.context.stdout.write('${name} ' + this.who + '\\n') }
}
class Undocumented extends Command {
  static paths = [['hidden-${name}']]
  async execute() {}
}
const demo = definePlugin({
  name: 'demo',
  setup(kernel) {
    appendFileSync(${JSON.stringify(marker)}, 'setup\\n')
    kernel.command(Contributed).command(Undocumented)
  },
})`,
    setup: '  kernel.register(demo)',
  }
}

const loads = (app: TempApp): string[] => {
  const file = join(app.root, 'loads.txt')
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []
}

test.before((context) => {
  context.app = createTempApp()
  const marker = join(context.app.root, 'loads.txt')
  context.app.rewrite(source(marker, 'greet', 'Say hello'))
})
test.after(({ app }) => app.remove())

test('the first --help boots the app, lists its commands and writes the manifest', async ({
  app,
}) => {
  const { code, stdout } = await fw(['--help'], app.env)
  assert.is(code, 0)
  assert.match(stdout, 'fw greet [--who <who>]')
  assert.match(stdout, 'Say hello')
  assert.equal(loads(app), ['loaded', 'setup'])
  // An undocumented command is not in clipanion's general help, booted or listed.
  assert.not.match(stdout, 'hidden-greet')
  booted = stdout
  assert.ok(existsSync(join(app.root, 'var', 'cache', 'fw-commands.json')))
})

let booted = ''

test('--help then lists them from the manifest without loading the app', async ({ app }) => {
  const before = loads(app).length
  const { code, stdout } = await fw(['--help'], app.env)
  assert.is(stdout, booted, 'the same help as the booted app printed')
  assert.is(code, 0)
  assert.match(stdout, 'fw greet [--who <who>]')
  assert.match(stdout, 'Say hello')
  assert.match(stdout, 'fw route:list')
  assert.is(loads(app).length, before, 'the app module was not imported')
})

test('an unknown command is answered from the manifest, with the suggestion', async ({ app }) => {
  const before = loads(app).length
  const { code, stdout, stderr } = await fw(['gret'], app.env)
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.match(stderr, "Did you mean 'fw greet'?")
  assert.is(loads(app).length, before)
})

test('running a contributed command boots the app', async ({ app }) => {
  const before = loads(app).length
  const { code, stdout } = await fw(['greet', '--who', 'you'], app.env)
  assert.is(code, 0)
  assert.is(stdout, 'greet you\n')
  assert.equal(loads(app).slice(before), ['loaded', 'setup'])
})

test('a change to the app module voids the manifest: --help lists the new commands', async ({
  app,
}) => {
  app.rewrite(source(join(app.root, 'loads.txt'), 'wave', 'Wave at someone'))
  const before = loads(app).length
  const first = await fw(['--help'], app.env)
  assert.is(first.code, 0)
  assert.match(first.stdout, 'fw wave [--who <who>]')
  assert.not.match(first.stdout, 'fw greet')
  assert.equal(loads(app).slice(before), ['loaded', 'setup'])

  const again = await fw(['--help'], app.env)
  assert.match(again.stdout, 'fw wave [--who <who>]')
  assert.is(loads(app).length, before + 2, 'the second --help read the new manifest')
})

test('a manifest written for another key (here FW_CONFIG) is not used', async ({ app }) => {
  const before = loads(app).length
  const { code, stdout } = await fw(['--help'], { ...app.env, FW_CONFIG: '{}' })
  assert.is(code, 0)
  assert.match(stdout, 'fw wave')
  assert.equal(loads(app).slice(before), ['loaded', 'setup'])
})

test("the playground's --help lists its plugins' commands from a fresh manifest", async () => {
  const manifest = join(root, 'playground', 'var', 'cache', 'fw-commands.json')
  rmSync(manifest, { force: true })
  const env = { FW_APP: '', DATABASE_URL: 'pglite://memory' }
  const booted = await fw(['--help'], env)
  assert.is(booted.code, 0, booted.stderr)
  assert.ok(existsSync(manifest))
  const listed = await fw(['--help'], env)
  assert.is(listed.code, 0, listed.stderr)
  assert.is(listed.stdout, booted.stdout)
  for (const name of ['api:docs', 'migrate', 'health:check', 'debug:token', 'app:create']) {
    assert.match(listed.stdout, `fw ${name}`, name)
  }
})

test.run()
