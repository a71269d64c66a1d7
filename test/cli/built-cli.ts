// The compiled CLI (`dist/cli/bin.js`, made by `npm run build`, which `npm test` runs first) as a
// child process in a folder, without the suite's FW_APP and FW_APP_KEY: its exit code and output.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url))

/** Runs the compiled `fw <args>` in `cwd`, `extra` added to the environment. */
export function runBuiltCli(
  cwd: string,
  args: readonly string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const { FW_APP: _app, FW_APP_KEY: _key, ...env } = process.env
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    child.on('error', fail)
    child.on('close', (code) => done({ code: code ?? 1, output }))
  })
}
