import { Command, Option } from 'clipanion'
import type { CommandContext } from 'fw'
import type {} from './index.js'

/** `fw migrate [--status]`: runs pending migrations (and the seed), or lists them. */
export class MigrateCommand extends Command<CommandContext> {
  static override paths = [['migrate']]
  static override usage = Command.Usage({
    category: 'Database',
    description: 'Run pending migrations, or list them with --status',
    details: `
      Runs every pending migration in order, under PostgreSQL's advisory lock so that several
      processes never migrate at once, then the application's seed (which only fills an empty
      database). With \`--status\`, lists executed and pending migrations and changes nothing.
    `,
    examples: [
      ['Run pending migrations', '$0 migrate'],
      ['List executed and pending migrations', '$0 migrate --status'],
    ],
  })

  status = Option.Boolean('--status', false, { description: 'List migrations without running any' })

  async execute(): Promise<number> {
    const db = this.context.kernel.plugin('database')
    const out = this.context.stdout
    if (this.status) {
      const { executed, pending } = await db.status()
      for (const name of executed) out.write(`  ran      ${name}\n`)
      for (const name of pending) out.write(`  pending  ${name}\n`)
      out.write(`${executed.length} ran, ${pending.length} pending\n`)
      return 0
    }
    const result = await db.prepare()
    for (const name of result.migrated) out.write(`  migrated ${name}\n`)
    out.write(
      result.migrated.length === 0
        ? 'Nothing to migrate.\n'
        : `${result.migrated.length} migration(s) ran.\n`,
    )
    if (result.seeded) out.write('Seeded the empty database.\n')
    return 0
  }
}
