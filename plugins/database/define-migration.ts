// Migrations written as SQL, without MikroORM: `defineMigration()` describes one, and the database
// plugin turns it into a MikroORM migration when it opens (the module that knows MikroORM's
// `Migration` class loads only then).
import { databaseErrors } from './errors.js'

/** Adds one statement to the migration being run: `sql('create table …')`. */
export type AddSql = (statement: string) => void

/**
 * A migration's statements: a list, run in order, or a function that adds them with `sql(…)`
 * (and may compute them first, awaiting if it must).
 */
export type MigrationSteps = readonly string[] | ((sql: AddSql) => void | Promise<void>)

/** A migration as SQL: what {@link defineMigration} returns and `addMigrations` takes. */
export interface SqlMigration {
  /** Unique among the app's migrations; start it with a timestamp (README.md "Migration order"). */
  readonly name: string
  /** What migrating up runs, in one transaction with the other pending migrations. */
  readonly up: MigrationSteps
  /** What reverting runs; without it the migration cannot be reverted. */
  readonly down?: MigrationSteps
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

function stepsProblem(which: string, steps: unknown): string | undefined {
  if (typeof steps === 'function') return undefined
  if (Array.isArray(steps) && steps.every((s) => typeof s === 'string' && s.trim() !== ''))
    return undefined
  return `\`${which}\` must be a list of SQL statements (non-empty strings) or a function (sql) => { sql('…') }`
}

/**
 * A migration as SQL statements, for a plugin package that ships migrations without depending on
 * MikroORM. Give the result (with others) to `addMigrations` or the `migrations` option. Fails
 * with `FW_ERR_DATABASE_MIGRATION_INVALID` when the name or the steps are not usable.
 *
 * @example
 * kernel.plugin('database').addMigrations([
 *   defineMigration({
 *     name: '20260101000000_hello_stats',
 *     up: ['create table hello_stats (name text primary key, visits integer not null)'],
 *     down: ['drop table hello_stats'],
 *   }),
 * ])
 */
export function defineMigration(migration: SqlMigration): SqlMigration {
  const { name, up, down } = (migration ?? {}) as Partial<SqlMigration>
  const problem =
    typeof name !== 'string' || !NAME.test(name)
      ? '`name` must be letters, digits, `_`, `.` or `-`, starting with a letter or digit (e.g. 20260101000000_create_visits)'
      : (stepsProblem('up', up) ?? (down === undefined ? undefined : stepsProblem('down', down)))
  if (problem !== undefined)
    throw databaseErrors.error('FW_ERR_DATABASE_MIGRATION_INVALID', {
      name: JSON.stringify(name),
      problem,
    })
  const copy = (steps: MigrationSteps): MigrationSteps =>
    typeof steps === 'function' ? steps : Object.freeze([...steps])
  return Object.freeze({
    name: name!,
    up: copy(up!),
    ...(down === undefined ? {} : { down: copy(down) }),
  })
}

/** Whether an entry of `addMigrations` is an {@link SqlMigration} (not `{ name, class }`). */
export function isSqlMigration(entry: object): entry is SqlMigration {
  return 'up' in entry && !('class' in entry)
}
