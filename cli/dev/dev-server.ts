import { basename, dirname, extname, relative } from 'node:path'
import { UsageError } from 'clipanion'
import { performance } from 'node:perf_hooks'
import type { Writable } from 'node:stream'
import { startCarryOver, type Kernel, type ListeningAddress } from 'fw'
import { findApp, loadApp, registerTypeScript } from '../load-app.js'
import { packageRoot } from '../prefer-compiled.js'
import { openDatabaseEarly, rememberDatabase } from './early-database.js'
import { failedRequestsPlugin } from './failed-requests.js'
import { describeFailure, formatFailure, type LoadFailure } from './load-failure.js'
import { versionModules, type ModuleVersions } from './module-versions.js'
import { ReloadChannel, reloadPlugin } from './reload-channel.js'
import { watchApp, type Change } from './watch.js'

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  readonly cwd: string
  /** The environment as the process started: each build reads `.env` into a fresh copy of it. */
  readonly env: NodeJS.ProcessEnv
  readonly stdout: Writable
  readonly stderr: Writable
  /** Where to listen; default the app's `http.port` and `http.host`. */
  readonly port?: number
  readonly host?: string
}

/** A running development server. */
export interface DevServer {
  readonly address: ListeningAddress
  /** The kernel answering requests now (the last build that loaded). */
  current(): Kernel
  /** Stops watching, ends the reload streams, drains, closes the app and its database. */
  close(): Promise<void>
}

/**
 * `fw dev`: builds the app from its modules (versioned, see version-hooks.ts), listens, and after
 * each saved change builds it again in this process and swaps the new build in behind the socket;
 * the database opened by the first build is carried over (the `CarryOver` of `fw`). A build that
 * fails leaves the last good one serving and its error on the console and in the page.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const { stdout, stderr } = options
  const location = findApp(options.cwd, options.env)
  const moduleDir = dirname(location.file)
  // Before tsx and the app: the embedded database opens meanwhile (early-database.ts).
  const releaseEarly = await openDatabaseEarly(moduleDir, options.env)
  await registerTypeScript(location.file, options.env)
  const versions: ModuleVersions = versionModules(moduleDir)
  const releaseCarried = startCarryOver()
  const channel = new ReloadChannel()
  const started = { ...options.env }
  const build = async (env: NodeJS.ProcessEnv): Promise<Kernel> => {
    const kernel = await loadApp({ cwd: options.cwd, env, boot: false, source: true })
    return kernel.register(reloadPlugin, { channel }).register(failedRequestsPlugin, { stderr })
  }
  const { listening, address } = await listenFirst(options, releaseEarly, () =>
    firstBuild(build, options.env, releaseCarried),
  )
  rememberDatabase(moduleDir, listening)
  let current = listening
  const root = listening.root
  const failures = new FailureReport(channel, stderr, root)
  const reload = async (changes: readonly Change[]): Promise<void> => {
    const at = performance.now()
    const names = changes.map((c) => relative(root, c.path) || c.path)
    const changed = names.join(', ')
    const code = changes.filter((c) => c.kind === 'code').map((c) => c.path)
    const setup = changes.some((c) => c.kind === 'setup')
    if (code.length === 0 && !setup) {
      // Templates and assets are read on each request in development: nothing to build.
      const ms = Math.round(performance.now() - at)
      channel.served({ changed: names, rebuilt: 'served as is', ms })
      stdout.write(`fw dev: ${changed} changed: served as is, pages reloaded (${ms} ms)\n`)
      return
    }
    tellRanAlready(current, code, root, stdout)
    const reimported = code.length === 0 && !setup ? 0 : await versions.invalidate(code, setup)
    const before = migrationsRun(current)
    let next: Kernel | undefined
    try {
      // A fresh copy of the environment the process started with: `.env` is read into it anew.
      next = await build({ ...started })
      await next.takeOver(listening)
    } catch (error) {
      if (next !== undefined) await next.close().catch(() => undefined)
      failures.report(error, changed)
      return
    }
    // Told at once, before anything else is awaited: no request can see the new build with the
    // old failure still reported.
    const previous = current
    current = next
    failures.reset()
    const rebuilt = rebuiltSummary(setup, code.length, reimported, migrationsRun(current) - before)
    const ms = Math.round(performance.now() - at)
    channel.served({ changed: names, rebuilt, ms })
    stdout.write(`fw dev: ${changed} changed: ${rebuilt} (${ms} ms)\n`)
    // The first build holds the socket: it stays open, idle, until the server stops.
    if (previous !== listening) await previous.close().catch(() => undefined)
  }

  const rebuilds = new Rebuilds((changes) =>
    reload(changes).catch((error: unknown) => failures.report(error, 'a file')),
  )
  const stopWatching = watchApp(root, packageRoot(moduleDir), (changes) => rebuilds.add(changes))

  return {
    address,
    current: () => current,
    async close() {
      stopWatching()
      await rebuilds.settled()
      channel.close()
      if (current !== listening) await current.close()
      await listening.close()
      await releaseCarried()
    },
  }
}

/**
 * The first build, listening (its database opened, migrated and seeded as its listen hook does);
 * then the embedded database opened early is closed unless the build took it, also when it failed.
 */
async function listenFirst(
  options: DevServerOptions,
  releaseEarly: () => Promise<void>,
  build: () => Promise<Kernel>,
): Promise<{ listening: Kernel; address: ListeningAddress }> {
  try {
    const listening = await build()
    const address = await listening.listen(
      options.port ?? listening.config.http.port,
      options.host ?? listening.config.http.host,
    )
    return { listening, address }
  } finally {
    await releaseEarly()
  }
}

/** The app's first build, which must be in development mode; the carried-over state released if not. */
async function firstBuild(
  build: (env: NodeJS.ProcessEnv) => Promise<Kernel>,
  env: NodeJS.ProcessEnv,
  releaseCarried: () => Promise<void>,
): Promise<Kernel> {
  let kernel: Kernel
  try {
    kernel = await build(env)
  } catch (error) {
    await releaseCarried()
    throw error
  }
  if (kernel.isDevelopment()) return kernel
  await releaseCarried()
  throw new UsageError(
    `fw dev serves in development mode, and this app is not in it: NODE_ENV is '${env.NODE_ENV ?? ''}' and its config does not set development: true. Unset NODE_ENV or set NODE_ENV=development (or turn development on in the app's config); fw serve serves without it.`,
  )
}

/** A build that failed: told to the page, and printed once (the same error again says nothing new). */
class FailureReport {
  #last = ''
  readonly #channel: ReloadChannel
  readonly #stderr: Writable
  readonly #root: string

  constructor(channel: ReloadChannel, stderr: Writable, root: string) {
    this.#channel = channel
    this.#stderr = stderr
    this.#root = root
  }

  report(error: unknown, changed: string): void {
    const failure: LoadFailure = describeFailure(error, this.#root)
    this.#channel.fail(failure)
    const text = formatFailure(failure)
    if (text === this.#last) return
    this.#last = text
    this.#stderr.write(
      `fw dev: ${changed} changed; the app did not load, the last good build serves:\n${text}`,
    )
  }

  /** A build served: the next failure is printed even when it is the last one again. */
  reset(): void {
    this.#last = ''
  }
}

/** What a rebuild did, as `fw dev` prints it. */
function rebuiltSummary(setup: boolean, code: number, reimported: number, applied: number): string {
  return [
    setup ? 'app rebuilt, .env and config read anew' : 'app rebuilt',
    code > 0 ? `${reimported} module${reimported === 1 ? '' : 's'} re-imported` : '',
    applied > 0 ? `${applied} migration${applied === 1 ? '' : 's'} applied` : '',
    'database kept',
  ]
    .filter((part) => part !== '')
    .join(', ')
}

/** One build at a time; changes saved meanwhile make the next one. */
class Rebuilds {
  #queued = new Map<string, Change>()
  #running: Promise<void> | undefined
  readonly #rebuild: (changes: readonly Change[]) => Promise<void>

  constructor(rebuild: (changes: readonly Change[]) => Promise<void>) {
    this.#rebuild = rebuild
  }

  add(changes: readonly Change[]): void {
    for (const change of changes) this.#queued.set(change.path, change)
    this.#running ??= this.#drain()
  }

  /** Resolves once no build is running. */
  settled(): Promise<void> | undefined {
    return this.#running
  }

  async #drain(): Promise<void> {
    while (this.#queued.size > 0) {
      const changes = [...this.#queued.values()]
      this.#queued = new Map()
      await this.#rebuild(changes)
    }
    this.#running = undefined
  }
}

/** How many migrations the app's database has run, when it has the database plugin. */
function migrationsRun(kernel: Kernel): number {
  if (!kernel.hasPlugin('database')) return 0
  return kernel
    .plugin('database')
    .migrations()
    .filter((m) => m.executed_at !== null).length
}

/**
 * Says, one line each, which changed files are migrations the database ran already: a file named
 * as its migration (`migrations/<name>.ts`, as `fw make:migration` writes it) whose name the
 * database recorded. Changing one does nothing (test/e2e/dev-migrations.test.ts).
 */
function tellRanAlready(
  kernel: Kernel,
  paths: readonly string[],
  root: string,
  stdout: Writable,
): void {
  if (!kernel.hasPlugin('database')) return
  const ran = new Set(
    kernel
      .plugin('database')
      .migrations()
      .filter((m) => m.executed_at !== null)
      .map((m) => m.name),
  )
  for (const path of paths) {
    const name = basename(path, extname(path))
    if (ran.has(name))
      stdout.write(
        `fw dev: ${relative(root, path)} changed, but migration ${name} ran already: changing it does nothing. Roll it back with fw dev stopped (npx fw migrate:rollback), or add a new migration (npx fw make:migration <name>).\n`,
      )
  }
}
