// `fw work` (or another fw command) of the jobs suites' app as a child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { CliResult } from 'fw/testing'
import { runCommands, type FwCommand } from '../../fixtures/fw-commands.js'
import { onPostgres } from '../../fixtures/on-postgres.js'

const bin = fileURLToPath(new URL('../../../cli/bin.ts', import.meta.url))
export const workerApp = fileURLToPath(new URL('./worker-app.ts', import.meta.url))

/** A running fw process: its output so far, a wait for a line, and its exit. */
export interface FwProcess {
  readonly child: ChildProcessWithoutNullStreams
  output(): string
  /** Resolves once the output matches `pattern`; rejects after `ms` or when it exits first. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>
  readonly exited: Promise<number | null>
}

/** Preloaded by default: the process prints `event loop drained` when it ends by itself. */
const LOOP_DRAINED = ['--import', new URL('../../fixtures/loop-drained.mjs', import.meta.url).href]

/** Starts `fw <args>` on the suites' app with `databaseUrl`. */
export function startFw(
  args: readonly string[],
  databaseUrl: string,
  env: NodeJS.ProcessEnv = {},
  nodeArgs: readonly string[] = LOOP_DRAINED,
): FwProcess {
  const preload = [...nodeArgs, '--import', 'tsx', '-C', 'fw-source']
  const child = spawn(process.execPath, [...preload, bin, ...args], {
    env: {
      ...process.env,
      FORCE_COLOR: '0',
      JOBS_TEST_ECHO: '1',
      FW_APP: workerApp,
      DATABASE_URL: databaseUrl,
      ...env,
    },
  })
  let out = ''
  const listeners = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    out += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern, ms = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return
          done()
          resolve()
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`no ${pattern} in ${ms} ms:\n${out}`))
        }, ms)
        const done = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        void exited.then((code) => {
          if (!listeners.has(check)) return
          done()
          reject(new Error(`exited ${code} before ${pattern}:\n${out}`))
        })
        check()
      })
    },
  }
}

/** Runs `fw <args>` to its end; its exit code and output. */
export async function runFw(
  args: readonly string[],
  databaseUrl: string,
): Promise<{ code: number | null; output: string }> {
  const p = startFw(args, databaseUrl, {}, [])
  const code = await p.exited
  return { code, output: p.output() }
}

/**
 * Runs several `fw` commands on the suites' app with `databaseUrl` in one child process, in
 * order; each one's code and output. For what commands do; `runFw` for a process of its own.
 */
export function runFwCommands(
  commands: readonly (readonly string[] | FwCommand)[],
  databaseUrl: string,
): Promise<CliResult[]> {
  return runCommands(commands, {
    env: { JOBS_TEST_ECHO: '1', FW_APP: workerApp, DATABASE_URL: databaseUrl },
  })
}

/** The exit codes of `results`, each with its output when it is not 0 (for an assertion). */
export function codesOf(results: readonly CliResult[]): (number | string)[] {
  return results.map((r) => (r.code === 0 ? 0 : `${r.code}: ${r.stdout}${r.stderr}`))
}

/** Stops `workers` with SIGTERM and waits until each has exited. */
export async function stopWorkers(workers: readonly FwProcess[]): Promise<void> {
  for (const w of workers) w.child.kill('SIGTERM')
  await Promise.all(workers.map((w) => w.exited))
}

/**
 * A {@link processDatabase}, migrated by `fw migrate` and given `commands` after it (jobs
 * dispatched, say), all in one child process; throws with the output of a command that failed.
 */
export async function preparedDatabase(
  commands: readonly (readonly string[])[] = [],
): Promise<{ url: string; drop(): Promise<void> }> {
  const db = await processDatabase()
  const codes = codesOf(await runFwCommands([['migrate'], ...commands], db.url))
  if (codes.some((code) => code !== 0)) {
    await db.drop()
    throw new Error(`preparing the database failed: ${codes.join('\n')}`)
  }
  return db
}

/**
 * A database for child processes: a fresh PostgreSQL database with DATABASE_URL, else a PGlite
 * directory of its own (one process at a time opens it).
 */
export async function processDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (onPostgres) {
    const { createTestDatabase } = await import('fw/plugins/database')
    return createTestDatabase()
  }
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'fw-jobs-'))
  return {
    url: `pglite://${join(dir, 'db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}
