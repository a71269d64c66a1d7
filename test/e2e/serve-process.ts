// Starts the playground (`fw serve`) as a real process for end-to-end suites.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))

/** A running `fw serve`. */
export interface ServedApp {
  readonly child: ChildProcessWithoutNullStreams
  readonly url: string
  output(): string
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
}

/**
 * Runs `fw serve --port 0` with `env`, resolving once it prints where it listens. `nodeArgs` go
 * to node before the CLI (a preloaded module, say); `serveArgs` replace `--port 0`.
 */
export function servePlayground(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [],
  serveArgs: readonly string[] = ['--port', '0'],
): Promise<ServedApp> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', '-C', 'fw-source', bin, 'serve', ...serveArgs],
    {
      env: { ...process.env, NO_COLOR: '1', ...env },
    },
  )
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`fw serve did not start in time:\n${out}`))
    }, timeoutMs)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`fw serve exited with ${code} before listening:\n${out}`))
    })
    child.stdout.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url === undefined) return
      clearTimeout(timer)
      resolve({
        child,
        url,
        output: () => out,
        stop: () => {
          child.kill('SIGTERM')
          return exited
        },
      })
    })
  })
}
