// docs/configuration.md's precedence, through the CLI as a user runs it: for one key (`http.port`),
// the default, then the app's config, then its variable from `.env`, then the same variable from
// the environment (which `.env` never replaces), then `FW_CONFIG` (from `.env` or the environment).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from 'fw/testing'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite<{ root: string }>('cli: configuration precedence')

/** An app whose plugin contributes `fw config:port`, printing the resolved `http.port`. */
function writeApp(root: string, config: object): void {
  writeFileSync(
    join(root, 'app.mjs'),
    `import { createKernel, definePlugin } from ${JSON.stringify(import.meta.resolve('fw'))}
import { Command } from ${JSON.stringify(import.meta.resolve('fw/cli'))}
class Port extends Command {
  static paths = [['config:port']]
  async execute() { this.context.stdout.write(this.context.kernel.config.http.port + '\\n') }
}
const show = definePlugin({ name: 'show', setup(kernel) { kernel.command(Port) } })
export default ({ env } = {}) =>
  createKernel({ root: ${JSON.stringify(root)}, env, config: ${JSON.stringify(config)} }).register(show)
`,
  )
}

/** `fw config:port` in the app with `env` on top of a clean environment. */
async function port(root: string, env: Record<string, string> = {}): Promise<string> {
  const clean = { PORT: undefined, HOST: undefined, FW_CONFIG: undefined }
  const result = await runCli(['config:port'], {
    cwd: root,
    env: { ...clean, FW_APP: join(root, 'app.mjs'), ...env },
    timeoutMs: 60_000,
  })
  assert.is(result.code, 0, result.stderr)
  return result.stdout.trim()
}

test.before.each((context) => {
  context.root = mkdtempSync(join(tmpdir(), 'fw-config-'))
})
test.after.each(({ root }) => rmSync(root, { recursive: true, force: true }))

test('the default, then the app config', async ({ root }) => {
  writeApp(root, {})
  assert.is(await port(root), '3000')
  writeApp(root, { http: { port: 4100 } })
  assert.is(await port(root), '4100')
})

test('.env beats the app config; the environment beats .env', async ({ root }) => {
  writeApp(root, { http: { port: 4100 } })
  writeFileSync(join(root, '.env'), 'PORT=4200\n')
  assert.is(await port(root), '4200')
  assert.is(await port(root, { PORT: '4300' }), '4300')
})

test('FW_CONFIG beats the variable, from .env as from the environment', async ({ root }) => {
  writeApp(root, { http: { port: 4100 } })
  writeFileSync(join(root, '.env'), 'PORT=4200\nFW_CONFIG={"http":{"port":4400}}\n')
  assert.is(await port(root, { PORT: '4300' }), '4400')
  assert.is(await port(root, { FW_CONFIG: '{"http":{"port":4500}}' }), '4500')
})

test.run()
