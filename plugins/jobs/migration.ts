import { defineMigration, type SqlMigration } from 'fw/plugins/database'
import { loadPgBoss } from './library.js'

/**
 * The queue's tables as pg-boss creates them (its construction plan for its schema version 24),
 * run as one of the app's migrations: under the database plugin's advisory lock and in its
 * transaction, so several instances starting together create them once. The plan's own
 * `BEGIN`/`COMMIT` go (the migration's transaction holds it); its advisory lock stays, harmless.
 * A later pg-boss schema version comes as another migration of `PgBoss.getMigrationPlans`.
 */
export function queueTablesMigration(schema: string): SqlMigration {
  return defineMigration({
    name: `20261129000000_jobs_${schema}_pg_boss_v24`,
    up: async (sql) => {
      const PgBoss = await loadPgBoss()
      const plan = PgBoss.getConstructionPlans(schema)
        .replace(/^\s*BEGIN;\s*$/m, '')
        .replace(/^\s*COMMIT;\s*$/m, '')
      sql(plan)
    },
    down: [`drop schema if exists "${schema}" cascade`],
  })
}
