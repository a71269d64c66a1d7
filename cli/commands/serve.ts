import cluster from 'node:cluster'
import { Command, Option, UsageError } from 'clipanion'
import type { Kernel } from 'fw'
import { serveClustered } from '../cluster.js'
import type { FwContext } from '../context.js'
import { parsePort, parseWholeNumber, parseWorkers } from '../options.js'

/**
 * Resolves with the first of SIGTERM or SIGINT; a second one while draining forces exit 1. A
 * cluster worker ignores the second: Ctrl-C signals the whole process group, so it gets SIGINT from
 * the terminal and SIGTERM from the primary for the same stop; forcing is the primary's call.
 */
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', on)
      process.off('SIGINT', on)
      const force = (): void => {
        if (cluster.isPrimary) process.exit(1)
      }
      process.on('SIGTERM', force)
      process.on('SIGINT', force)
      resolve(signal)
    }
    process.on('SIGTERM', on)
    process.on('SIGINT', on)
  })
}

/** A `--require-<name>` flag of `fw serve`, as a plugin declared it. */
export interface ServeFlag {
  readonly name: string
  readonly description: string
}

/** The flags the booted app's plugins declared, in declaration order. */
export function serveFlagsOf(kernel: Kernel): ServeFlag[] {
  return [...kernel.serveOptions.requirements()].map(([name, { description }]) => ({
    name,
    description,
  }))
}

/** `fw serve`: listens until SIGTERM or SIGINT, then drains in-flight requests and exits 0. */
export class ServeCommand extends Command<FwContext> {
  static override paths = [['serve']]

  static override usage = Command.Usage({
    category: 'Server',
    description: 'Serve the app over HTTP',
    details: `
      Listens on the configured host and port (\`PORT\`, \`HOST\`, or the app's \`http\` config; \`--port\` and \`--host\` override them) and prints the URL.

      Plugins add flags of their own (\`kernel.serveOptions\`): \`--require-<plugin>\` exits 1 when what that plugin needs cannot be had at start, instead of serving without it; they are listed below when the app registers them.

      On SIGTERM or SIGINT readiness fails at once (\`GET /health/ready\` answers 503); for \`--shutdown-delay\` seconds (the app's \`http.shutdown_delay\`, default 0) it keeps accepting and answering, each answer with \`Connection: close\`, so that a load balancer stops sending first. Then it stops accepting connections and drains: every request already read is answered, with \`Connection: close\`, as is one that arrives on an open keep-alive connection meanwhile; idle connections are closed after a 1 s grace. Then it closes the app's resources (the database last) and exits 0. After \`--drain-timeout\` seconds (the app's \`http.drain_timeout\`, default 30) it closes the connections still open. A second signal while draining exits 1 at once.

      \`--with-worker\` also runs the app's background jobs in this process (the jobs plugin; \`fw work\` runs them in processes of their own). On a stop they get the drain's time to finish after the requests have drained.

      \`--workers N\` (or \`auto\`) runs N worker processes with node:cluster, sharing the port; the primary restarts a worker that dies and forwards the stop signal to all of them.
    `,
    examples: [
      ['Serve on the configured port', '$0 serve'],
      ['Serve on a free port of every interface', '$0 serve --port 0 --host 0.0.0.0'],
      ['Serve with one worker per core', '$0 serve --workers auto'],
      ['Give in-flight requests up to 60 s on SIGTERM', '$0 serve --drain-timeout 60'],
      [
        'Behind a load balancer checking every 2 s, out after 2 failures',
        '$0 serve --shutdown-delay 5',
      ],
    ],
  })

  port = Option.String('--port', { description: 'Port to listen on (0 picks a free one)' })
  host = Option.String('--host', { description: 'Address to listen on, e.g. 0.0.0.0' })
  workers = Option.String('--workers', {
    description: 'Number of worker processes, or auto (default 1)',
  })
  drainTimeout = Option.String('--drain-timeout', {
    description: 'Seconds to let requests finish on SIGTERM (default: http.drain_timeout, 30)',
  })
  withWorker = Option.Boolean('--with-worker', false, {
    description: "Also run the jobs plugin's jobs in this process (a one-process app)",
  })
  shutdownDelay = Option.String('--shutdown-delay', {
    description:
      'Seconds to keep answering after readiness fails on SIGTERM (default: http.shutdown_delay, 0)',
  })

  /**
   * This command with a `--require-<name>` flag for each start requirement the app's plugins
   * declared (`kernel.serveOptions.require()`): what the CLI registers once the app is loaded.
   */
  /**
   * `fw serve` with a `--require-<name>` flag per requirement a plugin declared
   * (`kernel.serveOptions`), from the booted app or, for `--help` without booting, from the
   * command manifest the last boot wrote.
   */
  static withRequirements(requirements: readonly ServeFlag[]): typeof ServeCommand {
    if (requirements.length === 0) return ServeCommand
    return class extends ServeCommand {
      constructor() {
        super()
        for (const { name, description } of requirements)
          this.#flags()[flagKey(name)] = Option.Boolean(`--require-${name}`, false, { description })
      }
    }
  }

  /** The option fields by key (clipanion reads and fills each own field that holds an option). */
  #flags(): Record<string, unknown> {
    return this as unknown as Record<string, unknown>
  }

  override async execute(): Promise<number> {
    const { kernel, stdout } = this.context
    const port = this.port === undefined ? kernel.config.http.port : parsePort(this.port)
    if (this.host !== undefined && this.host.trim() === '')
      throw new UsageError('--host must not be empty (e.g. --host=0.0.0.0).')
    const host = this.host?.trim() ?? kernel.config.http.host
    const workers = this.workers === undefined ? 1 : parseWorkers(this.workers)
    const drainSeconds =
      this.drainTimeout === undefined
        ? kernel.config.http.drain_timeout
        : parseWholeNumber('--drain-timeout', this.drainTimeout, 0, 86_400, '30')
    const delaySeconds =
      this.shutdownDelay === undefined
        ? kernel.config.http.shutdown_delay
        : parseWholeNumber('--shutdown-delay', this.shutdownDelay, 0, 3_600, '5')
    const oneProcess = kernel.serveOptions.oneProcessReason
    if (workers > 1 && oneProcess !== undefined) throw new UsageError(oneProcess)
    if (workers > 1 && cluster.isPrimary) {
      return serveClustered({
        workers,
        name: kernel.config.app.name,
        stdout,
        stderr: this.context.stderr,
      })
    }
    if (!(await this.#requirementsHold(kernel))) return 1
    if (this.withWorker && !kernel.hasPlugin('jobs'))
      throw new UsageError('--with-worker runs the jobs plugin, which this app does not register.')
    const { url } = await listen(kernel, port, host)
    // After listening: the database is migrated by then. The jobs plugin's shutdown tap lets
    // running jobs finish once the requests have drained.
    if (this.withWorker) await kernel.plugin('jobs').work()
    // Listened for before the line that says it listens: whoever reads that line may stop it at
    // once (test/cli/production-database.test.ts stops it right after).
    const signalled = nextSignal()
    if (cluster.isPrimary) {
      stdout.write(`fw: ${kernel.config.app.name} listening on ${url}\n`)
      if (kernel.hasPlugin('auth') && !kernel.plugin('auth').hasAppKey)
        this.context.stderr.write(
          'fw: no application key (FW_APP_KEY): sign-in and tokens are off. Make one with `npx fw key:generate`.\n',
        )
    }
    const signal = await signalled
    if (cluster.isPrimary)
      stdout.write(
        delaySeconds > 0
          ? `fw: ${signal} received, not ready; answering for ${delaySeconds} s more, then draining (at most ${drainSeconds} s)…\n`
          : `fw: ${signal} received, draining in-flight requests (at most ${drainSeconds} s)…\n`,
      )
    await kernel.close(drainSeconds * 1000, delaySeconds * 1000)
    if (cluster.isPrimary) stdout.write('fw: stopped.\n')
    return 0
  }

  /**
   * The `--require-<name>` flags given: each requirement's check runs after boot, before
   * listening; the first that fails ends the start (exit 1 with its answer on one line).
   */
  async #requirementsHold(kernel: Kernel): Promise<boolean> {
    for (const [name, requirement] of kernel.serveOptions.requirements()) {
      if (this.#flags()[flagKey(name)] !== true) continue
      await kernel.boot()
      const why = await requirement.check()
      if (why === undefined) continue
      this.context.stderr.write(`fw: ${why}; not serving (--require-${name}).\n`)
      return false
    }
    return true
  }
}

/** The field of `--require-<name>` on a {@link ServeCommand}. */
const flagKey = (name: string): string => `require:${name}`

async function listen(kernel: Kernel, port: number, host: string): Promise<{ url: string }> {
  try {
    return await kernel.listen(port, host)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `Port ${port} on ${host} is already in use. Stop what holds it, or pick another with --port.`,
      )
    if (code === 'EACCES')
      throw new UsageError(
        `Not allowed to listen on ${host}:${port}. Pick a port above 1023 with --port.`,
      )
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(
        `Cannot listen on host '${host}': no such local address. Pick another with --host.`,
      )
    throw error
  }
}
