// A temporary copy of the playground (or another app in a temp package), and `fw dev` (or `fw
// serve`) running on it as a real process: for the suites that edit the app's files while it serves.
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
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFw, type FwProcess } from '../fixtures/fw-process.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))

/** A package in a temp folder whose `node_modules` has fw and fw's dependencies: an app's home. */
export interface TempPackage {
  readonly dir: string
  /** The app's root: the folder its files are read, written and replaced in. */
  readonly root: string
  read(file: string): string
  write(file: string, text: string): void
  /** Replaces `from` by `to` in a file of the app; fails when `from` is not in it. */
  replace(file: string, from: string, to: string): void
  remove(): void
}

/** A copy of `playground/` in a temp package (`root` is the copy's `playground/` folder). */
export type PlaygroundCopy = TempPackage

/**
 * `modules`, made a folder of links to the repository's installed packages (`fw` itself left
 * out): the dependencies of a copy that is edited, for the price of a link each.
 */
export function linkDependencies(modules: string): string {
  mkdirSync(modules)
  const shared = join(repo, 'node_modules')
  for (const entry of readdirSync(shared))
    if (entry !== 'fw' && !entry.startsWith('.'))
      symlinkSync(join(shared, entry), join(modules, entry))
  return modules
}

/**
 * A temp package whose `package.json` names `app` (relative to the package) as the fw app, with
 * `files` (paths relative to `root`, itself `rootDir` under the package) written into it.
 */
export function createTempPackage(options: {
  app: string
  rootDir?: string
  files?: Record<string, string>
}): TempPackage {
  const dir = mkdtempSync(join(tmpdir(), 'fw-dev-'))
  const modules = linkDependencies(join(dir, 'node_modules'))
  symlinkSync(repo, join(modules, 'fw'))
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'fw-dev-copy',
      private: true,
      type: 'module',
      fw: { app: options.app },
    }),
  )
  const root = join(dir, options.rootDir ?? '.')
  const path = (file: string): string => join(root, file)
  for (const [file, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(path(file)), { recursive: true })
    writeFileSync(path(file), text)
  }
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

export function copyPlayground(): PlaygroundCopy {
  const copy = createTempPackage({ app: './playground/app.ts', rootDir: 'playground' })
  cpSync(join(repo, 'playground'), copy.root, {
    recursive: true,
    filter: (source) => !source.startsWith(join(repo, 'playground', 'var')),
  })
  return copy
}

/** A running `fw dev` (or `fw serve`). */
export type RunningApp = FwProcess

/** Runs `fw <command> --port 0` in the copy, resolving once it prints where it listens. */
export function runInCopy(
  copy: Pick<TempPackage, 'dir'>,
  command: 'dev' | 'serve',
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 120_000,
): Promise<RunningApp> {
  return startFw({
    command,
    cwd: copy.dir,
    env: { DATABASE_URL: 'pglite://memory', FW_APP_KEY: 'base64:fw-dev-suite-key', ...env },
    timeoutMs,
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
