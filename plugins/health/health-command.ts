import { Command, formatTable, Option } from 'fw/cli'
import type { CommandContext } from 'fw'
import { formatDetails } from './pages.js'
import type { HealthStatus } from './types.js'

const EXIT: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 }

/**
 * `fw health:check [--json] [--only=a,b] [--timeout <seconds>]`: runs the checks; exit 0 ok,
 * 1 degraded, 2 down.
 */
export class HealthCheckCommand extends Command<CommandContext> {
  static override paths = [['health:check']]
  static override usage = Command.Usage({
    category: 'Health',
    description: 'Run the health checks and print the report',
    details: `
      Runs every registered check (built-in, feature and application checks; the app is booted),
      in parallel, each under its timeout (\`--timeout\` sets every check's). What a check needs
      first (the database opened and connected) is readied before, outside the timeouts. Prints
      the overall status and a table, or with \`--json\` the report \`{status, checks}\`. Exit
      code 0 when all are ok, 1 when any is degraded, 2 when any is down. \`--only\` runs the
      named checks; an unknown name is skipped with a warning.
    `,
    examples: [
      ['Run every check', '$0 health:check'],
      [
        'Only the database and the disk, as JSON',
        '$0 health:check --only=database,disk_space --json',
      ],
      ['Give every check 10 seconds', '$0 health:check --timeout 10'],
    ],
  })

  json = Option.Boolean('--json', false, { description: 'Print the report as JSON' })
  only = Option.String('--only', { description: 'Comma-separated check names to run' })
  timeout = Option.String('--timeout', {
    description: "Every check's timeout in seconds (default: each check's own, 2 s)",
  })

  async execute(): Promise<number> {
    const health = this.context.kernel.plugin('health')
    const { stdout, stderr } = this.context
    const timeoutMs = this.timeout === undefined ? undefined : Number(this.timeout) * 1000
    if (timeoutMs !== undefined && !(timeoutMs > 0 && Number.isFinite(timeoutMs))) {
      stderr.write(`fw: --timeout must be a number of seconds above 0, got '${this.timeout}'.\n`)
      return 1
    }
    let only: string[] | undefined
    if (this.only !== undefined) {
      const known = new Set(health.checks().map((c) => c.name))
      only = []
      for (const name of this.only
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '')) {
        if (known.has(name)) only.push(name)
        else
          stderr.write(
            `Warning: unknown check '${name}' skipped (registered: ${[...known].join(', ') || 'none'}).\n`,
          )
      }
    }
    // Opening what the checks need is not what they measure: done first, outside their timeouts.
    const selected = health.checks().filter((c) => only?.includes(c.name) ?? true)
    await Promise.all(selected.map((c) => c.open?.().catch(() => undefined)))
    const report = await health.run({
      fresh: true,
      ...(only && { only }),
      ...(timeoutMs && { timeoutMs }),
    })
    if (this.json) {
      stdout.write(`${JSON.stringify({ status: report.status, checks: report.checks }, null, 2)}\n`)
    } else {
      stdout.write(`Overall status: ${report.status.toUpperCase()}\n\n`)
      const rows = Object.values(report.checks).map((c) => {
        const { checked_at: _at, ...rest } = c.details ?? {}
        return [c.name, c.status.toUpperCase(), c.message, formatDetails(rest)]
      })
      stdout.write(formatTable(['Check', 'Status', 'Message', 'Details'], rows))
    }
    return EXIT[report.status]
  }
}
