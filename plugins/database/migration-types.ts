// The migrations an app and its plugins hand the database plugin, and what it reports of them:
// the types the lifecycle, the migration order and the migration runs share.
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { MigrationEntry } from './migration.js'

// One migration's types live beside the `Migration` class they name (migration.ts).
export type { MigrationEntry, MigrationObject } from './migration.js'

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
