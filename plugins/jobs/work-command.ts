import { Command, Option, UsageError } from 'fw/cli'
import { messageOf, type CommandContext } from 'fw'

/**
 * Resolves with the first SIGTERM or SIGINT; a second one while stopping exits 1 at once, as
 * `fw serve` does.
 */
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', on)
      process.off('SIGINT', on)
      const force = (): void => process.exit(1)
      process.on('SIGTERM', force)
      process.on('SIGINT', force)
      resolve(signal)
    }
    process.on('SIGTERM', on)
    process.on('SIGINT', on)
  })
}

function whole(flag: string, raw: string, min: number, max: number): number {
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${raw}'.`)
  return n
}

/** `fw work [--queues a,b] [--concurrency N] [--drain-timeout S] [--port P]`. */
export class WorkCommand extends Command<CommandContext> {
  static override paths = [['work']]
  static override usage = Command.Usage({
    category: 'Jobs',
    description: 'Run background jobs until SIGTERM',
    details: `
      Migrates the database (under its advisory lock, as \`fw serve\` does), then runs the app's jobs: every defined job, or those \`--queues\` names, each up to its \`concurrency\` at once (\`--concurrency\` overrides it), and the schedules' ticks. Run as many as you like beside the servers: no job runs twice.

      On SIGTERM or SIGINT it stops taking jobs; running jobs get \`--drain-timeout\` seconds (the app's \`jobs.drain_timeout\`, default 30) to finish, then are aborted and handed back to their queue, to be retried. Then it exits 0. A second signal exits 1 at once.

      With \`--port\` it also listens there, so that a probe can read \`GET /health/ready\` (503 from the moment it stops).
    `,
    examples: [
      ['Run every job', '$0 work'],
      ['Only mail, ten at a time', '$0 work --queues mail.welcome,mail.digest --concurrency 10'],
    ],
  })

  queues = Option.String('--queues', { description: 'Job names to run, comma-separated' })
  concurrency = Option.String('--concurrency', {
    description: "Jobs of one queue run at once (default: each job's concurrency)",
  })
  drainTimeout = Option.String('--drain-timeout', {
    description: 'Seconds running jobs get to finish on SIGTERM (default: jobs.drain_timeout, 30)',
  })
  port = Option.String('--port', { description: 'Also listen there for health probes' })

  override async execute(): Promise<number> {
    const { kernel, stdout, stderr } = this.context
    const concurrency =
      this.concurrency === undefined ? undefined : whole('--concurrency', this.concurrency, 1, 1000)
    const drainMs =
      this.drainTimeout === undefined
        ? kernel.config.jobs.drain_timeout * 1000
        : whole('--drain-timeout', this.drainTimeout, 0, 86_400) * 1000
    const port = this.port === undefined ? undefined : whole('--port', this.port, 0, 65_535)
    const jobs = kernel.plugin('jobs')
    const queues = this.queues
      ?.split(',')
      .map((q) => q.trim())
      .filter((q) => q !== '')
    for (const name of queues ?? [])
      if (!jobs.definitions().has(name))
        throw new UsageError(
          `--queues names '${name}', which no job has (defined: ${[...jobs.definitions().keys()].join(', ') || 'none'}).`,
        )
    await kernel.boot()
    try {
      await kernel.plugin('database').prepare()
    } catch (error) {
      stderr.write(`fw: the database is not available (${messageOf(error)}); not working.\n`)
      return 1
    }
    await jobs.work({
      ...(queues === undefined ? {} : { queues }),
      ...(concurrency === undefined ? {} : { concurrency }),
    })
    const names = queues ?? [...jobs.definitions().keys()]
    const listening = port === undefined ? undefined : await kernel.listen(port)
    stdout.write(
      `fw: worker ready: ${names.join(', ') || 'no jobs'}${listening === undefined ? '' : ` (health on ${listening.url})`}\n`,
    )
    const signal = await nextSignal()
    stdout.write(`fw: ${signal} received, finishing running jobs (at most ${drainMs / 1000} s)…\n`)
    kernel.readiness.markStopping()
    await jobs.stop(drainMs)
    await kernel.close()
    stdout.write('fw: stopped.\n')
    return 0
  }
}
