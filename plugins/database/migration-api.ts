import { assertDatabaseExists } from './database-exists.js'
import type { DatabaseLifecycle } from './lifecycle.js'
import type { RunTarget } from './migration-runs.js'
import type { DatabaseApi } from './types.js'

/** The members of the database API behind the migration commands (README.md "Commands"). */
export type MigrationApi = Pick<
  DatabaseApi,
  'assertExists' | 'status' | 'rollback' | 'fresh' | 'seed'
>

/**
 * The migration commands' operations on a lifecycle: those that must not create the database
 * (`status`, `rollback`, `seed`) look for it first and fail naming it; `fresh` creates it as
 * `prepare()` does. `migration-runs.ts` (and the migration runner) loads on first use.
 */
export function migrationApi(life: DatabaseLifecycle, acquireMs: number): MigrationApi {
  const assertExists = () => assertDatabaseExists(life.target, acquireMs)
  /** Connects the database, and loads the runs. */
  const open = async () => {
    await life.connect()
    const runs = await import('./migration-runs.js')
    const { orm, migrations } = life.current!
    const target: RunTarget = { orm, migrations, target: life.target, acquireMs }
    return { runs, target }
  }
  return {
    assertExists,
    async status() {
      // Once it exists, connecting (which would create it) changes nothing.
      await assertExists()
      return life.status()
    },
    async rollback(step = 1) {
      await assertExists()
      const { runs, target } = await open()
      const reverted = await runs.rollbackMigrations(target, step)
      await life.readMigrations()
      return reverted
    },
    async fresh(options = {}) {
      const { runs, target } = await open()
      await runs.dropSchemaObjects(target)
      return life.prepare({ seed: options.seed === true })
    },
    async seed() {
      await assertExists()
      const { runs, target } = await open()
      return runs.runSeeds(target, life.seed)
    },
  }
}
