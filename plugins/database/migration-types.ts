// The migrations an app and its plugins hand the database plugin, and what it reports of them:
// the types the lifecycle, the migration order and the migration runs share.
import type { Configuration } from '@mikro-orm/core'
import type { AbstractSqlDriver, SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { SqlMigration } from './define-migration.js'
import type { Migration } from './migration.js'

/** A migration written as a class: `{ name, class }`, the class extending fw's `Migration`. */
export interface MigrationObject {
  /** Unique among the app's migrations, recorded in `fw_migrations` once it ran: never rename it. */
  readonly name: string
  readonly class: new (driver: AbstractSqlDriver, config: Configuration) => Migration
}

/**
 * One migration: `{ name, class }` (a class extending `Migration`), or SQL statements made by
 * `defineMigration`.
 */
export type MigrationEntry = MigrationObject | SqlMigration

/**
 * Migrations (run with every plugin's in one order: README.md "Migration order"), or a function
 * that imports them: a loader keeps the migrations' modules out of processes that never migrate,
 * such as `fw route:list`.
 *
 * @example
 * migrations: () => import('./migrations/index.js').then((m) => m.migrations)
 */
export type Migrations = readonly MigrationEntry[] | (() => Promise<readonly MigrationEntry[]>)

/** Fills an empty database; answers whether it wrote anything. */
export type Seed = (em: EntityManager) => Promise<boolean>

/** A migration and its state: when it ran, or null while pending. */
export interface MigrationState {
  readonly name: string
  /** ISO 8601, or null: pending. */
  readonly executed_at: string | null
  /** Set on a pending migration not written yet (its `up` has no statements): it waits. */
  readonly unwritten?: true
}
