import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli, type CliResult } from 'fw/testing'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite('load-app')
let app: TempApp

test.before.each(() => {
  app = createTempApp({
    setup: `  kernel.command(class NotACommand {})
  globalThis.__seen = { FROM_DOTENV: env.FROM_DOTENV, PRESET: env.PRESET }`,
  })
})
test.after.each(() => app.remove())

test('finds the app through the fw.app field of the nearest package.json', async () => {
  const { code, stdout } = await runCli(['route:list', '--json'], {
    cwd: join(process.cwd(), 'playground', 'views'),
  })
  assert.is(code, 0)
  assert.ok((JSON.parse(stdout) as { path: string }[]).some((r) => r.path === '_demo/ping'))
})

test('loads the app named by FW_APP, relative to the cwd', async () => {
  const { code, stdout } = await runCli(['route:list', '--json'], {
    env: { FW_APP: relative(process.cwd(), app.module) },
  })
  assert.is(code, 0, stdout)
  assert.match(stdout, '"hello"')
})

/** An app module that throws on import. */
const BROKEN = "throw new Error('cannot start')\n"

/** `fw route:list` on the app module `file` of the temp app's folder, written first from `source`. */
async function routeListOf(
  file: string,
  source?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  if (source !== undefined) writeFileSync(join(app.root, file), source)
  return runCli(['route:list'], { env: { FW_APP: join(app.root, file), ...env } })
}

/** Asserts exit 1 with a one-line message holding each of `parts`. */
function assertOneLineError({ code, stderr }: CliResult, ...parts: string[]): void {
  assert.is(code, 1)
  assert.is(stderr.trim().split('\n').length, 1)
  for (const part of parts) assert.match(stderr, part)
}

test('exits 1 with one line when the app module does not exist', async () => {
  assertOneLineError(await routeListOf('missing.ts'), 'missing.ts', 'does not exist')
})

test('exits 1 with one line and no stack when the app module throws on import', async () => {
  const result = await routeListOf('broken.mjs', BROKEN)
  assertOneLineError(result, 'cannot start')
  assert.not.match(result.stderr, '    at ')
})

test('shows the stack of a failing app module under FW_DEBUG', async () => {
  const { code, stderr } = await routeListOf('broken.mjs', BROKEN, { FW_DEBUG: '1' })
  assert.is(code, 1)
  assert.match(stderr, '    at ')
})

test('exits 1 with one line when the module does not default-export a factory', async () => {
  assertOneLineError(await routeListOf('plain.mjs', 'export const x = 1\n'), 'default-export')
})

test('loads .env beside the app without overriding what the environment sets', async () => {
  writeFileSync(join(app.root, '.env'), 'FROM_DOTENV=file\nPRESET=file\n')
  writeFileSync(
    join(app.root, 'print-env.mjs'),
    `import factory from './app.mjs'
export default (options) => { const k = factory(options); process.stdout.write(JSON.stringify(globalThis.__seen) + '\\n'); return k }
`,
  )
  const { code, stdout } = await runCli(['up'], {
    env: { FW_APP: join(app.root, 'print-env.mjs'), PRESET: 'shell' },
  })
  assert.is(code, 0)
  assert.equal(JSON.parse(stdout.split('\n')[0]!), { FROM_DOTENV: 'file', PRESET: 'shell' })
})

test('skips a contributed command that is not a clipanion command, with a warning', async () => {
  const { code, stderr } = await runCli(['route:list'], { env: app.env })
  assert.is(code, 0)
  assert.match(stderr, 'must be a clipanion Command subclass')
})

test.run()
