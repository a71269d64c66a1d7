import { existsSync } from 'node:fs'
import { Command, Option } from 'clipanion'
import { builtinCommand } from '../builtin-command.js'
import { briefly, maintenanceStore } from './maintenance-store.js'
import { parseWholeNumber } from '../options.js'

/** `Retry-After` when `--retry` is not given, in seconds (docs/errors.md "Maintenance"). */
const DEFAULT_RETRY = 300
/** The kernel reads at most seven digits from the flag file. */
const MAX_RETRY = 9_999_999

/** `fw down`: puts the app in maintenance mode (every request answers 503 until `fw up`). */
export class DownCommand extends builtinCommand('down', { bootsApp: false }) {
  static override usage = Command.Usage({
    category: 'Maintenance',
    description: 'Put the app in maintenance mode',
    details: `
      On PostgreSQL, stores the state in the database and announces it, so every instance of the app goes down within a moment; otherwise (and when the database cannot be written) writes the flag file \`var/MAINTENANCE\` under the app root, for this machine. While it exists, every request answers 503 with a \`Retry-After\` header: JSON \`{error: "maintenance", retry_after}\` to clients that ask for JSON, an HTML page to browsers. Running instances notice within a second.

      \`--retry\` sets the seconds clients are told to wait (default ${DEFAULT_RETRY}). \`fw up\` ends maintenance.
    `,
    examples: [
      ['Go down, clients retry after 5 minutes', '$0 down'],
      ['Go down, clients retry after a minute', '$0 down --retry=60'],
    ],
  })

  retry = Option.String('--retry', {
    description: `Seconds clients should wait before retrying (default ${DEFAULT_RETRY})`,
  })

  override async execute(): Promise<number> {
    const { kernel, stdout, stderr } = this.context
    const { enterMaintenance, maintenanceFile } = await import('fw')
    const seconds =
      this.retry === undefined
        ? DEFAULT_RETRY
        : parseWholeNumber('--retry', this.retry, 1, MAX_RETRY, '60')
    const store = await maintenanceStore(kernel)
    if (store !== undefined) {
      try {
        await store.write(seconds)
        stdout.write(
          `The app is down for maintenance on every instance (state in ${store.description}); clients are told to retry after ${seconds} s. Run 'fw up' to bring it back.\n`,
        )
        return 0
      } catch (error) {
        stderr.write(
          `fw: the shared maintenance state could not be written (${briefly(error)}): only this machine goes down.\n`,
        )
      } finally {
        await kernel.close()
      }
    }
    const already = existsSync(maintenanceFile(kernel.root))
    const file = enterMaintenance(kernel.root, seconds)
    stdout.write(
      already
        ? `The app was already down; clients are now told to retry after ${seconds} s (${file}).\n`
        : `The app is down for maintenance; clients are told to retry after ${seconds} s (${file}). Run 'fw up' to bring it back.\n`,
    )
    return 0
  }
}
