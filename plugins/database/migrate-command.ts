import { Option, pluginCommand, UsageError, wholeNumberOption, withUsageErrors } from 'fw/cli'
import type { CommandContext } from 'fw'
import { databaseErrors } from './errors.js'

/** Failures that are the user's to fix: printed as one line (`fw: …`), exit 1. */
const USER_ERRORS = [
  'FW_ERR_DATABASE_MISSING',
  'FW_ERR_DATABASE_MIGRATION_IRREVERSIBLE',
  'FW_ERR_DATABASE_MIGRATIONS_PENDING',
] as const

/**
 * Refuses, as a usage error, unless the database exists (it is named, never created) and every
 * migration ran: what a plugin's command checks before it touches the plugin's tables
 * (test/plugins/auth/user-commands.test.ts).
 */
export async function requireMigrated(context: CommandContext): Promise<void> {
  const db = context.kernel.plugin('database')
  const { pending, unwritten = [] } = await withUsageErrors(['FW_ERR_DATABASE_MISSING'], () =>
    db.status(),
  )
  const first = pending[0]
  if (first === undefined) return
  const error = databaseErrors.error('FW_ERR_DATABASE_MIGRATIONS_PENDING', {
    count: pending.length,
    first,
    unwritten: unwritten.includes(first),
  })
  throw new UsageError(error.message)
}

/** `fw migrate [--status]`: runs pending migrations (and the seed), or lists them. */
export class MigrateCommand extends pluginCommand('migrate', {
  category: 'Database',
  description: 'Run pending migrations, or list them with --status',
  details: `
    Runs every pending migration in order, under PostgreSQL's advisory lock so that several
    processes never migrate at once, then the application's seed (which only fills an empty
    database). A migration not written yet (its \`up\` has no statements, as
    \`fw make:migration\` writes it) is not run nor recorded, and those after it wait for it;
    the seed waits too. A database that does not exist yet is created. With \`--status\`,
    lists executed and pending migrations and changes nothing: a database that does not exist
    is an error naming it (exit 1), and no migrations table is created.
  `,
  examples: [
    ['Run pending migrations', '$0 migrate'],
    ['List executed and pending migrations', '$0 migrate --status'],
  ],
}) {
  status = Option.Boolean('--status', false, { description: 'List migrations without running any' })

  async execute(): Promise<number> {
    const db = this.context.kernel.plugin('database')
    const out = this.context.stdout
    if (this.status) {
      const { executed, pending, unwritten } = await withUsageErrors(USER_ERRORS, () => db.status())
      for (const name of executed) out.write(`  ran      ${name}\n`)
      for (const name of pending)
        out.write(
          unwritten?.includes(name) === true
            ? `  pending  ${name} (not written yet: its up has no statements)\n`
            : `  pending  ${name}\n`,
        )
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
    if (result.waiting !== undefined) out.write(`${waitingMessage(result.waiting)}\n`)
    return 0
  }
}

/** What `fw migrate` prints when a migration is not written yet (nothing after it ran). */
function waitingMessage(waiting: readonly string[]): string {
  const after = waiting.length - 1
  const rest = after === 0 ? '' : `, nor the ${after} after it (they wait for it)`
  return `Migration ${waiting[0]} is not written yet (its up has no statements): not run${rest}. Write its SQL, then run fw migrate again.`
}

/** `fw migrate:rollback [--step N]`: reverts the last N migrations that ran. */
export class MigrateRollbackCommand extends pluginCommand('migrate:rollback', {
  category: 'Database',
  description: 'Revert the last migrations that ran (their down)',
  details: `
    Reverts the last \`--step\` migrations that ran (default 1), newest first, in one
    transaction under the migration lock: all of them or none. Refuses (exit 1, naming it)
    before reverting anything when one of them has no \`down\`. A database that does not
    exist is an error naming it.
  `,
  examples: [
    ['Revert the last migration', '$0 migrate:rollback'],
    ['Revert the last three', '$0 migrate:rollback --step 3'],
  ],
}) {
  step = Option.String('--step', '1', { description: 'How many migrations to revert (default 1)' })

  async execute(): Promise<number> {
    const step = wholeNumberOption('--step', this.step, 1)
    const db = this.context.kernel.plugin('database')
    const out = this.context.stdout
    const reverted = await withUsageErrors(USER_ERRORS, () => db.rollback(step))
    for (const name of reverted) out.write(`  reverted ${name}\n`)
    out.write(
      reverted.length === 0
        ? 'Nothing to roll back.\n'
        : `${reverted.length} migration(s) reverted.\n`,
    )
    return 0
  }
}

/** `fw migrate:fresh [--seed] [--force]`: drops the schema's objects and migrates again. */
export class MigrateFreshCommand extends pluginCommand('migrate:fresh', {
  category: 'Database',
  description: "Drop every table of the app's schema and run all migrations again",
  details: `
    Drops every object of the database's current schema (tables, the migrations table, views,
    sequences, types, functions; not an extension's), then runs every migration, and with
    \`--seed\` the application's seeds. Every row is lost: with \`NODE_ENV=production\` it
    refuses unless \`--force\`.
  `,
  examples: [
    ['Start over with an empty, migrated database', '$0 migrate:fresh'],
    ['The same, then seed it', '$0 migrate:fresh --seed'],
  ],
}) {
  seed = Option.Boolean('--seed', false, { description: 'Run the seeds afterwards' })
  force = Option.Boolean('--force', false, { description: 'Run even with NODE_ENV=production' })

  async execute(): Promise<number> {
    if (this.context.env.NODE_ENV === 'production' && !this.force)
      throw new UsageError(
        'migrate:fresh drops every table, and NODE_ENV is production: add --force to do it anyway.',
      )
    const db = this.context.kernel.plugin('database')
    const out = this.context.stdout
    const result = await db.fresh({ seed: this.seed })
    out.write("Dropped the schema's objects.\n")
    for (const name of result.migrated) out.write(`  migrated ${name}\n`)
    out.write(`${result.migrated.length} migration(s) ran.\n`)
    if (result.seeded) out.write('Seeded the database.\n')
    return 0
  }
}

/** `fw db:seed`: runs the seeds now, whatever the database holds. */
export class DbSeedCommand extends pluginCommand('db:seed', {
  category: 'Database',
  description: "Run the application's seeds now",
  details: `
    Runs every seed (the database plugin's \`seed\` option, then those plugins added), whatever
    the database holds: each seed decides what to write. Under the migration lock; refuses while
    a migration has not run, and when the database does not exist.
  `,
  examples: [['Seed the database', '$0 db:seed']],
}) {
  async execute(): Promise<number> {
    const db = this.context.kernel.plugin('database')
    const wrote = await withUsageErrors(USER_ERRORS, () => db.seed())
    this.context.stdout.write(wrote ? 'Seeded.\n' : 'The seeds had nothing to write.\n')
    return 0
  }
}

/** Every command of the database plugin. */
export const databaseCommands = [
  MigrateCommand,
  MigrateRollbackCommand,
  MigrateFreshCommand,
  DbSeedCommand,
] as const
