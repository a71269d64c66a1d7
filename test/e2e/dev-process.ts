// A temporary copy of the playground, and `fw dev` (or `fw serve`) running on it as a real
// process: for the suites that edit the app's files while it serves.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const bin = join(repo, 'cli', 'bin.ts')

/** A copy of `playground/` in a temp folder whose `node_modules` has fw and fw's dependencies. */
export interface PlaygroundCopy {
  readonly dir: string
  /** The copy's `playground/` folder (the app's root). */
  readonly root: string
  read(file: string): string
  write(file: string, text: string): void
  /** Replaces `from` by `to` in a file of the copy; fails when `from` is not in it. */
  replace(file: string, from: string, to: string): void
  remove(): void
}

export function copyPlayground(): PlaygroundCopy {
  const dir = mkdtempSync(join(tmpdir(), 'fw-dev-'))
  const modules = join(dir, 'node_modules')
  mkdirSync(modules)
  const shared = join(repo, 'node_modules')
  for (const entry of readdirSync(shared)) {
    if (entry === 'fw' || entry.startsWith('.')) continue
    symlinkSync(join(shared, entry), join(modules, entry))
  }
  symlinkSync(repo, join(modules, 'fw'))
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'fw-dev-copy',
      private: true,
      type: 'module',
      fw: { app: './playground/app.ts' },
    }),
  )
  const root = join(dir, 'playground')
  cpSync(join(repo, 'playground'), root, {
    recursive: true,
    filter: (source) => !source.startsWith(join(repo, 'playground', 'var')),
  })
  const path = (file: string): string => join(root, file)
  return {
    dir,
    root,
    read: (file) => readFileSync(path(file), 'utf8'),
    write: (file, text) => writeFileSync(path(file), text),
    replace(file, from, to) {
      const text = readFileSync(path(file), 'utf8')
      if (!text.includes(from)) throw new Error(`${file} does not contain ${from}`)
      writeFileSync(path(file), text.replace(from, to))
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A running `fw dev` (or `fw serve`). */
export interface RunningApp {
  readonly child: ChildProcessWithoutNullStreams
  readonly url: string
  output(): string
  stop(): Promise<number | null>
}

/** Runs `fw <command> --port 0` in the copy, resolving once it prints where it listens. */
export function runInCopy(
  copy: PlaygroundCopy,
  command: 'dev' | 'serve',
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 120_000,
): Promise<RunningApp> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', bin, command, '--port', '0'],
    {
      cwd: copy.dir,
      env: {
        ...process.env,
        NO_COLOR: '1',
        DATABASE_URL: 'pglite://memory',
        FW_APP_KEY: 'base64:fw-dev-suite-key',
        ...env,
      },
    },
  )
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`fw ${command} did not start in time:\n${out}`))
    }, timeoutMs)
    exited.then(
      (code) => {
        clearTimeout(timer)
        reject(new Error(`fw ${command} exited with ${code} before listening:\n${out}`))
      },
      () => undefined,
    )
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

/**
 * Polls `probe` until it answers a value other than undefined (or stops throwing), failing with
 * its last answer after `timeoutMs`. For waiting on a reload: never a fixed sleep.
 */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined) return value
      last = 'undefined'
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${String(last)})`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
