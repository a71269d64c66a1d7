// `fw … | head -1`: a reader that closes the pipe before the command is done writing. The CLI
// entry finishes the command quietly: exit 0, nothing on stderr, no stack trace.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite<{ app: TempApp }>('cli: a closed stdout')
const bin = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))

test.before((context) => {
  context.app = createTempApp({
    preamble: `import debug from ${JSON.stringify(import.meta.resolve('fw/plugins/debug'))}`,
    setup: `  kernel.register(debug)`,
  })
})
test.after(({ app }) => app.remove())

/** Runs `fw args` with its stdout read by nobody: the pipe's reading end is closed at once. */
function runIntoClosedPipe(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '-C', 'fw-source', bin, ...args], {
    env: { ...process.env, FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // The reader closes before the command writes its first byte (loading tsx takes longer).
  child.stdout.destroy()
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  )
}

for (const [label, args] of [
  ['debug:token', ['debug:token']],
  ['--help (no app)', ['--help']],
  ['route:list', ['route:list']],
] as const) {
  test(`fw ${label} into a closed pipe exits 0 without a trace`, async ({ app }) => {
    const { code, signal, stderr } = await runIntoClosedPipe([...args], {
      ...app.env,
      FW_APP_KEY: 'cli-epipe-key-0123456789abcdef0123456789',
    })
    assert.is(signal, null)
    assert.is(stderr, '', stderr)
    assert.is(code, 0)
  })
}

test.run()
