import type { PGlite } from '@electric-sql/pglite'
import {
  MikroORM,
  type AnyEntity,
  type EntityManager,
  type EntitySchema,
  type MigrationObject,
  type Options,
} from '@mikro-orm/core'
import { Migrator } from '@mikro-orm/migrations'
import { PostgreSqlDriver } from '@mikro-orm/postgresql'
import { currentContext } from 'fw'
import { PGliteDriver } from 'mikro-orm-pglite'
import type { DatabaseTarget } from './connection-url.js'
import { createPglite } from './pglite-template.js'
import { ModelRecorder, QueryRecorder } from './recorders.js'

declare module 'fw' {
  interface ContextState {
    /** The request's own EntityManager, forked on first use (database plugin). */
    em?: EntityManager
  }
}

/** An entity declaration the plugin accepts: MikroORM `EntitySchema`s (no legacy decorators). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- EntitySchema's type parameters vary per entity
export type AnyEntitySchema = EntitySchema<any, any>

/** What opening the database gives: the ORM and, for PGlite, the embedded instance it borrows. */
export interface OpenedDatabase {
  readonly orm: MikroORM
  /** Closes the ORM, then the embedded database if there is one. */
  close(): Promise<void>
}

/**
 * Initialises MikroORM for a target without connecting: the first query connects (so CLI commands
 * that never touch the database never pay for it; PGlite's WASM start-up alone is ~0.3 s).
 */
export async function openDatabase(
  target: DatabaseTarget,
  entities: readonly AnyEntitySchema[],
  migrations: readonly MigrationObject[],
): Promise<OpenedDatabase> {
  let pglite: PGlite | undefined
  let orm: MikroORM | undefined
  const common: Options = {
    entities: [...entities],
    extensions: [Migrator],
    migrations: {
      migrationsList: [...migrations],
      tableName: 'fw_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    loggerFactory: (options) => new QueryRecorder(options),
    subscribers: [new ModelRecorder()],
    // The request's EntityManager: MikroORM asks this whenever code uses `orm.em`.
    context: () => {
      const ctx = currentContext()
      if (ctx === undefined || orm === undefined) return undefined
      return (ctx.state.em ??= orm.em.fork({ disableContextResolution: true }))
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    connect: false,
    discovery: { warnWhenNoEntities: false },
  }
  if (target.kind === 'postgresql') {
    orm = await MikroORM.init({
      ...common,
      driver: PostgreSqlDriver,
      clientUrl: target.url,
      dbName: target.dbName,
      pool: { min: 0, max: 10 },
    })
  } else {
    const dataDir = target.dataDir
    orm = await MikroORM.init({
      ...common,
      driver: PGliteDriver,
      dbName: 'postgres',
      driverOptions: {
        connection: {
          pglite: async () => {
            pglite ??= await createPglite(dataDir)
            return pglite
          },
        },
      },
    })
  }
  const opened = orm
  return {
    orm: opened,
    async close() {
      await opened.close(true)
      await pglite?.close()
    },
  }
}

/** The entity's class name as MikroORM knows it. */
export function entityName(entity: AnyEntity): string {
  return (entity as { constructor: { name: string } }).constructor.name
}
