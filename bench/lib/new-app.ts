// What bench/new-app.ts and bench/app-start.ts share about an app `fw new` made: running a command
// to its end, `npm install` from npm's cache, and `npm run dev` (in its own process group, as a
// user's shell runs it) from the spawn to the first 200 of `GET /`.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { firstOk, root } from './playground-child.js'

/** npm's flags for an install that takes what npm's cache holds, quietly. */
export const INSTALL_FLAGS = [
  'install',
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
  '--loglevel=error',
]

/** The environment of an app's commands: none of the caller's fw settings or database. */
export function appEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const {
    FW_APP: _a,
    NODE_ENV: _n,
    DATABASE_URL: _d,
    FW_APP_KEY: _k,
    FW_CONFIG: _c,
    ...env
  } = process.env
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra }
}

/** Runs `cmd args` in `cwd` to its end; its wall time in ms. Throws with its output when it fails. */
export function timedRun(cmd: string, args: readonly string[], cwd: string): Promise<number> {
  const start = performance.now()
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env: appEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    child.on('error', fail)
    child.on('close', (code) => {
      if (code === 0) done(performance.now() - start)
      else fail(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${output}`))
    })
  })
}

/** A running `npm run dev`: the ms from its spawn to its first 200 on `GET /`, and its stop. */
export interface DevRun {
  readonly firstPageMs: number
  stop(): Promise<void>
}

/** The whole process group (npm, its shell, node, fw dev's app process): SIGTERM, then SIGKILL. */
async function stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const kill = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // Already gone.
    }
  }
  kill('SIGTERM')
  const timer = setTimeout(() => kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

/** `npm run dev` in `app` on a free port, until `GET /` answers 200 (within 120 s). */
export async function startDev(app: string): Promise<DevRun> {
  const start = performance.now()
  const child = spawn('npm', ['run', 'dev'], {
    cwd: app,
    env: appEnv({ PORT: '0' }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const stop = (): Promise<void> => stopGroup(child, exited)
  let output = ''
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 'listening on' within 120 s`)), 120_000)
      const read = (c: Buffer): void => {
        output += c.toString()
        const found = /listening on (http:\/\/\S+)/.exec(output)?.[1]
        if (found !== undefined) {
          clearTimeout(timer)
          resolve(found)
        }
      }
      child.stdout!.on('data', read)
      child.stderr!.on('data', read)
      void exited.then(() => {
        clearTimeout(timer)
        reject(new Error('npm run dev exited'))
      })
    })
    const { at } = await firstOk(`${url}/`, { accept: 'text/html' }, 120_000)
    return { firstPageMs: at - start, stop }
  } catch (error) {
    await stop()
    throw new Error(`${(error as Error).message}:\n${output}`, { cause: error })
  }
}

/** An app made by this checkout's built `fw new`, installed from fw's packed tarball. */
export interface PackedApp {
  /** The app's folder. */
  readonly dir: string
  /** Removes the app and the tarball. */
  cleanUp(): void
}

/**
 * Packs fw (`npm pack` of the built package), makes an app with the built CLI's `fw new` depending
 * on the tarball, and installs it (`npm install` from npm's cache): the app as a user has it.
 */
export async function packedApp(): Promise<PackedApp> {
  const work = mkdtempSync(join(tmpdir(), 'fw-bench-app-'))
  const cleanUp = (): void => rmSync(work, { recursive: true, force: true })
  try {
    await timedRun('npm', ['pack', '--ignore-scripts', '--pack-destination', work], root)
    const tarball = join(
      work,
      readdirSync(work).find((f) => f.endsWith('.tgz'))!,
    )
    const bin = join(root, 'dist', 'cli', 'bin.js')
    await timedRun(process.execPath, [bin, 'new', 'app', '--fw', `file:${tarball}`], work)
    await timedRun('npm', INSTALL_FLAGS, join(work, 'app'))
    return { dir: join(work, 'app'), cleanUp }
  } catch (error) {
    cleanUp()
    throw error
  }
}
