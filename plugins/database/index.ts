import type { MigrationObject, MikroORM } from '@mikro-orm/core'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { performance } from 'node:perf_hooks'
import { currentContext, definePlugin, FwError, type Kernel } from 'fw'
import { parseDatabaseUrl, type DatabaseTarget } from './connection-url.js'
import './events.js'
import { MigrateCommand } from './migrate-command.js'
import { openDatabase, type AnyEntitySchema, type OpenedDatabase } from './orm.js'
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
  /** The ORM; available from boot on (the database opens in a boot tap at stage -100). */
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
  /** Adds entities (a plugin's own tables); only during setup, before the database opens at boot. */
  addEntities(...entities: AnyEntitySchema[]): void
  /** Adds migrations (run in name order with everyone's); only during setup. */
  addMigrations(...migrations: MigrationObject[]): void
  /** Adds a seed, run after the options' seed under the same lock; only during setup. */
  addSeed(seed: (em: EntityManager) => Promise<boolean>): void
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
  setup(kernel, options) {
    kernel.useRequestScope()
    const target = parseDatabaseUrl(
      options.url ?? kernel.config.database.url ?? 'pglite://memory',
      process.cwd(),
    )
    const entities: AnyEntitySchema[] = [...options.entities]
    const migrations: MigrationObject[] = [...(options.migrations ?? [])]
    const seeds: NonNullable<DatabaseOptions['seed']>[] = options.seed ? [options.seed] : []
    let db: OpenedDatabase | undefined
    const opened = (): OpenedDatabase => {
      if (db === undefined) {
        throw new FwError(
          'FW_ERR_DATABASE_NOT_READY',
          'The database is opened at boot, after every plugin is set up. Use it in a boot tap, a handler or a command, not in setup().',
        )
      }
      return db
    }
    let connected = false
    const connect = async (): Promise<void> => {
      if (connected) return
      const started = performance.now()
      await opened().orm.connect()
      connected = true
      kernel.recordBootPhase('db-connect', performance.now() - started)
    }
    const seed = async (em: EntityManager): Promise<boolean> => {
      let wrote = false
      for (const run of seeds) wrote = (await run(em)) || wrote
      return wrote
    }
    const api: DatabaseApi = {
      get orm() {
        return opened().orm
      },
      target,
      addEntities(...more) {
        if (db !== undefined) throw tooLate('addEntities')
        entities.push(...more)
      },
      addMigrations(...more) {
        if (db !== undefined) throw tooLate('addMigrations')
        migrations.push(...more)
      },
      addSeed(more) {
        if (db !== undefined) throw tooLate('addSeed')
        seeds.push(more)
      },
      em: () => {
        const orm = opened().orm
        return (
          currentContext() === undefined ? orm.em.fork() : orm.em.getContext()
        ) as EntityManager
      },
      toData: (entity) => toData(opened().orm, entity),
      async prepare() {
        await connect()
        return prepareDatabase(opened().orm, target, seeds.length > 0 ? seed : undefined)
      },
      async status() {
        await connect()
        const migrator = opened().orm.getMigrator()
        const executed = (await migrator.getExecutedMigrations()).map((m) => m.name)
        const pending = (await migrator.getPendingMigrations()).map((m) => m.name)
        return { executed, pending }
      },
    }
    // Opened first thing at boot, once every plugin's setup had its chance to add entities and
    // migrations, and before anything else's boot tap (and the router's compile) needs it.
    kernel.hooks.boot.tapPromise({ name: 'database', stage: -100 }, async () => {
      // Migrations run in name order (names start with a timestamp), whichever plugin added them.
      migrations.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
      db = await openDatabase(target, entities, migrations)
      registerBindings(kernel, api)
    })
    kernel.command(MigrateCommand)
    if (options.prepareOnListen !== false)
      kernel.hooks.listen.tapPromise('database', async () => void (await api.prepare()))
    kernel.hooks.shutdown.tapPromise({ name: 'database', stage: 100 }, async () => db?.close())
    return api
  },
})

function tooLate(method: string): FwError {
  return new FwError(
    'FW_ERR_DATABASE_NOT_READY',
    `database.${method}() was called after the database opened. Call it in your plugin's setup(), and list 'database' in its dependsOn.`,
  )
}

export { createTestDatabase } from './test-database.js'
export type { TestDatabase } from './test-database.js'
export { parseDatabaseUrl } from './connection-url.js'
export type { DatabaseTarget } from './connection-url.js'
export type { AnyEntitySchema } from './orm.js'
export type { PrepareResult } from './prepare.js'
