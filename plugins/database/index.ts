import type { MigrationObject, MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { performance } from 'node:perf_hooks'
import { currentContext, definePlugin, type Kernel } from 'fw'
import { parseDatabaseUrl, type DatabaseTarget } from './connection-url.js'
import './events.js'
import { MigrateCommand } from './migrate-command.js'
import { openDatabase, type AnyEntitySchema } from './orm.js'
import { prepareDatabase, type PrepareResult } from './prepare.js'
import { toData } from './serialize.js'

/** Options of the database plugin. */
export interface DatabaseOptions {
  /** Entities, declared as MikroORM `EntitySchema`s. */
  entities: readonly AnyEntitySchema[]
  /** Migrations in order, as `{ name, class }`. */
  migrations?: readonly MigrationObject[]
  /** The database URL; default config `database.url` (`DATABASE_URL`), else `pglite://memory`. */
  url?: string
  /**
   * Fills an empty database; runs after migrations under the same lock, so it runs once however
   * many processes start together. Returns whether it wrote anything.
   */
  seed?: (em: EntityManager) => Promise<boolean>
  /** Migrate and seed when the kernel starts listening (default true). */
  prepareOnListen?: boolean
}

/** What `kernel.plugin('database')` returns. */
export interface DatabaseApi {
  readonly orm: MikroORM
  readonly target: DatabaseTarget
  /** The current request's EntityManager; outside a request, a fresh fork. */
  em(): EntityManager
  /** An entity's data export (spec.md "Model serialisation"). */
  toData(entity: object): Record<string, unknown>
  /** Runs pending migrations and the seed under the advisory lock. */
  prepare(): Promise<PrepareResult>
  /** Executed and pending migration names. */
  status(): Promise<{ executed: string[]; pending: string[] }>
}

declare module 'fw' {
  interface PluginApis {
    database: DatabaseApi
  }
}

function registerBindings(kernel: Kernel, api: DatabaseApi): void {
  for (const meta of Object.values(api.orm.getMetadata().getAll())) {
    if (meta.embeddable || meta.virtual || meta.primaryKeys.length !== 1) continue
    const pk = meta.properties[meta.primaryKeys[0]!]
    const numeric = pk !== undefined && ['number', 'bigint'].includes(pk.runtimeType)
    kernel.binding(meta.className, async (value) => {
      // A key the column could not hold is no record, not a database error.
      if (numeric && !/^\d{1,15}$/.test(value)) return undefined
      return (await api.em().findOne(meta.className, numeric ? Number(value) : value)) ?? undefined
    })
  }
}

/**
 * MikroORM 6 as a plugin: PostgreSQL (`postgresql://…`) or embedded PGlite (`pglite://memory`,
 * `pglite://<dir>`), a request-scoped EntityManager, `query.*` and `model.*` events in each
 * request's log, migrations under an advisory lock, implicit route binding for every entity, and
 * `fw migrate`.
 */
export default definePlugin<DatabaseOptions, DatabaseApi>({
  name: 'database',
  async setup(kernel, options) {
    kernel.useRequestScope()
    const target = parseDatabaseUrl(
      options.url ?? kernel.config.database.url ?? 'pglite://memory',
      process.cwd(),
    )
    const db = await openDatabase(target, options.entities, options.migrations ?? [])
    const orm = db.orm
    let connected = false
    const connect = async (): Promise<void> => {
      if (connected) return
      const started = performance.now()
      await orm.connect()
      connected = true
      kernel.recordBootPhase('db-connect', performance.now() - started)
    }
    const api: DatabaseApi = {
      orm,
      target,
      em: () =>
        (currentContext() === undefined ? orm.em.fork() : orm.em.getContext()) as EntityManager,
      toData: (entity) => toData(orm, entity),
      async prepare() {
        await connect()
        return prepareDatabase(orm, target, options.seed)
      },
      async status() {
        await connect()
        const migrator = orm.getMigrator()
        const executed = (await migrator.getExecutedMigrations()).map((m) => m.name)
        const pending = (await migrator.getPendingMigrations()).map((m) => m.name)
        return { executed, pending }
      },
    }
    registerBindings(kernel, api)
    kernel.command(MigrateCommand)
    if (options.prepareOnListen !== false)
      kernel.hooks.listen.tapPromise('database', async () => void (await api.prepare()))
    kernel.hooks.shutdown.tapPromise({ name: 'database', stage: 100 }, () => db.close())
    return api
  },
})

export { createTestDatabase } from './test-database.js'
export type { TestDatabase } from './test-database.js'
export { parseDatabaseUrl } from './connection-url.js'
export type { DatabaseTarget } from './connection-url.js'
export type { AnyEntitySchema } from './orm.js'
export type { PrepareResult } from './prepare.js'
