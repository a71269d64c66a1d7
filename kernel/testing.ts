// `fw/testing`: the helpers fw's own suites use, published so a plugin author tests a plugin the
// same way and an app its own app: a kernel with a quiet logger, an app booted on an in-memory
// database, in-process requests, the CLI as a child process, and assertions on the event log.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AnyEvent, EventMap, EventType, FwEvent, PhaseName } from './events.js'
import type { InjectRequest, InjectResponse } from './http/inject.js'
import { createKernel } from './create-kernel.js'
import type { Kernel } from './kernel.js'
import type { AppFactory, KernelOptions } from './types.js'
import type { Logger } from './logger.js'
import type { AnyPlugin, Plugin } from './plugin.js'

/** A logger that keeps what it is told, for assertions. */
export interface MemoryLogger extends Logger {
  readonly entries: {
    level: 'error' | 'warn' | 'info'
    message: string
    context?: Record<string, unknown>
  }[]
}

/** Creates a {@link MemoryLogger}. */
export function createMemoryLogger(): MemoryLogger {
  const entries: MemoryLogger['entries'] = []
  return {
    entries,
    error: (message, context) => void entries.push({ level: 'error', message, context }),
    warn: (message, context) => void entries.push({ level: 'warn', message, context }),
    info: (message, context) => void entries.push({ level: 'info', message, context }),
  }
}

/** A plugin and its options, as `createTestKernel` takes them. */
export type PluginEntry = readonly [AnyPlugin, unknown?]

declare const optionsMustBe: unique symbol

/**
 * What the type checker names when an entry's options do not fit its plugin: the error reads
 * `… is not assignable to type 'OptionsMustBe<{ prefix?: string }>'` (a property
 * `[optionsMustBe]` missing), the type argument being the options type the plugin declares. No
 * value has this type.
 */
export interface OptionsMustBe<O> {
  readonly [optionsMustBe]: O
}

/**
 * True when `G`, the options given, cannot fit `O`, the plugin's: a key `O` does not have, a value
 * whose type has nothing in common with its key's (`42` for a string), or options of another kind
 * altogether. Deeper mismatches are left to the assignment itself.
 */
type Misfits<G, O> = [G] extends [undefined]
  ? undefined extends O
    ? false
    : true
  : [G & NonNullable<O>] extends [never]
    ? true
    : G extends object
      ? [Exclude<keyof G, keyof NonNullable<O>>] extends [never]
        ? true extends {
            [K in keyof G & keyof NonNullable<O>]: [G[K] & NonNullable<O>[K]] extends [never]
              ? true
              : false
          }[keyof G & keyof NonNullable<O>]
          ? true
          : false
        : true
      : false

/** The entry of a plugin with options `O`: `[plugin, options]`, the options optional when `O`'s are. */
type EntryOf<P, O> = undefined extends O ? readonly [P, O?] : readonly [P, O]

/**
 * The entry a plugin needs, checked as `kernel.register` checks it: its options' type, and
 * optional only when the plugin's options are. Options that do not fit make the entry
 * `[plugin, OptionsMustBe<O>]`, so the error names the type the options must have.
 */
export type CheckedEntry<E> = E extends readonly [infer P, ...infer Rest]
  ? P extends Plugin<infer O, unknown>
    ? Rest extends readonly [infer Given, ...unknown[]]
      ? Misfits<Given, O> extends true
        ? readonly [P, OptionsMustBe<O>]
        : EntryOf<P, O>
      : undefined extends O
        ? EntryOf<P, O>
        : // required options left out: the plugin itself is flagged, naming them
          readonly [P & OptionsMustBe<O>]
    : never
  : never

/** Options of {@link createTestKernel}: kernel options plus plugins to register. */
export interface TestKernelOptions<
  E extends readonly PluginEntry[] = readonly PluginEntry[],
> extends KernelOptions {
  /** Plugins with their options, registered in order; the options are type-checked per plugin. */
  plugins?: E & { readonly [K in keyof E]: CheckedEntry<E[K]> }
}

/**
 * A kernel for tests: its root a fresh temporary directory (unless given), an empty environment
 * (so the machine's `FW_CONFIG` or `PORT` cannot leak in), and a memory logger
 * (`kernel.logger.entries`).
 *
 * @example
 * const kernel = createTestKernel({ plugins: [[myPlugin, { greeting: 'hi' }]] })
 * const res = await kernel.inject('/hello')
 */
export function createTestKernel<const E extends readonly PluginEntry[] = readonly []>(
  options: TestKernelOptions<E> = {},
): Kernel & { logger: MemoryLogger } {
  const kernel = createKernel({
    root: options.root ?? mkdtempSync(join(tmpdir(), 'fw-test-')),
    env: options.env ?? {},
    config: options.config,
    logger: options.logger ?? createMemoryLogger(),
  })
  for (const [plugin, pluginOptions] of options.plugins ?? []) {
    ;(kernel.register as (p: unknown, o: unknown) => Kernel)(plugin, pluginOptions)
  }
  return kernel as Kernel & { readonly logger: MemoryLogger }
}

/** Options of {@link createTestApp}. */
export interface TestAppOptions {
  /**
   * Variables over the test defaults: `NODE_ENV=test`, `DATABASE_URL=pglite://memory` (a fresh
   * embedded database per app) and a random `FW_APP_KEY`; nothing of the machine's environment is
   * read.
   */
  env?: NodeJS.ProcessEnv
  /** The app's root, passed to the factory (`AppOptions.root`). Default: the factory's own. */
  root?: string
  /** Run the migrations and the seed (the database plugin's `prepare()`) once booted. Default: true. */
  prepare?: boolean
}

/**
 * The app an {@link AppFactory} builds, booted for a test: a fresh in-memory database, a memory
 * logger, an application key of its own, the migrations applied and the seed run (`prepare`).
 * Close it when done (`await kernel.close()`).
 *
 * @example
 * import createApp from '../app.js'
 * const kernel = await createTestApp(createApp)
 * const res = await kernel.inject('/')
 * await kernel.close()
 */
export async function createTestApp(
  factory: AppFactory,
  options: TestAppOptions = {},
): Promise<Kernel> {
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: 'pglite://memory',
    FW_APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    ...options.env,
  }
  const kernel = await factory({
    env,
    logger: createMemoryLogger(),
    ...(options.root === undefined ? {} : { root: options.root }),
  })
  try {
    await kernel.boot()
    if (options.prepare !== false && kernel.hasPlugin('database')) {
      // The database plugin's api, named structurally: the kernel does not depend on the plugin.
      const db = (kernel.plugin as (name: string) => { prepare(): Promise<unknown> })('database')
      await db.prepare()
    }
  } catch (error) {
    await kernel.close().catch(() => undefined)
    throw error
  }
  return kernel
}

/** Sends a request through `kernel.inject()`: a shorthand for suites. */
export function inject(kernel: Kernel, request: InjectRequest | string): Promise<InjectResponse> {
  return kernel.inject(request)
}

/** What {@link runCli} returns. */
export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs the `fw` CLI as a child process and collects its output. From the TypeScript sources it runs
 * `cli/bin.ts` through tsx; from the built package, `dist/cli/bin.js`. A child still running after
 * `timeoutMs` (default two minutes: a guard against a hang, not a measure of speed; opening an
 * embedded database on a loaded machine takes tens of seconds) is killed.
 *
 * @example
 * const { code, stdout } = await runCli(['route:list', '--json'])
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const here = fileURLToPath(import.meta.url)
  const fromSource = here.endsWith('.ts')
  const bin = fileURLToPath(
    new URL(fromSource ? '../cli/bin.ts' : '../cli/bin.js', import.meta.url),
  )
  // tsx by absolute URL, so the child can run from any working directory (a temp app, say).
  const nodeArgs = fromSource
    ? ['--import', import.meta.resolve('tsx'), '-C', 'fw-source', bin, ...args]
    : [bin, ...args]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, FORCE_COLOR: '0', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? 1, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}

/** The events of one type in a log, typed. */
export function eventsOf<T extends EventType>(events: readonly AnyEvent[], type: T): FwEvent<T>[] {
  return events.filter((e): e is FwEvent<T> & AnyEvent => e.type === type) as FwEvent<T>[]
}

/** The data of the first event of a type; throws with the log's types when there is none. */
export function expectEvent<T extends EventType>(
  events: readonly AnyEvent[],
  type: T,
): Readonly<EventMap[T]> {
  const found = eventsOf(events, type)[0]
  if (!found)
    throw new Error(
      `Expected a '${type}' event; the log has: ${events.map((e) => e.type).join(', ') || 'nothing'}.`,
    )
  return found.data
}

/** The names of the phases a log completed, in order. */
export function phasesOf(events: readonly AnyEvent[]): PhaseName[] {
  return eventsOf(events, 'phase.completed').map((e) => e.data.name)
}
