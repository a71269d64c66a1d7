import { DecimalType, EntitySchema } from '@mikro-orm/core'
import { suite, type Test } from 'uvu'
import type { KernelOptions } from 'fw'
import database, {
  createTestDatabase,
  defineMigration,
  Migration,
  type DatabaseApi,
  type DatabaseOptions,
  type PrepareResult,
  type SqlMigration,
  type TestDatabase,
} from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'

export { onPostgres } from '../../fixtures/on-postgres.js'

export class Gadget {
  id!: number
  name!: string
  price!: number
  active!: boolean
  tags!: string[]
  notes!: string | null
  createdAt: Date = new Date('2026-01-02T03:04:05.000Z')
}

/** A new gadget's values for `em.create(Gadget, …)`: active, no tags or notes, created now. */
export function gadgetValues(name: string, price = 1): Omit<Gadget, 'id'> {
  return { name, price, active: true, tags: [], notes: null, createdAt: new Date() }
}

export const GadgetSchema = new EntitySchema<Gadget>({
  class: Gadget,
  tableName: 'gadgets',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string' },
    price: { type: new DecimalType('number'), precision: 10, scale: 2 },
    active: { type: 'boolean' },
    tags: { type: 'json' },
    notes: { type: 'text', nullable: true },
    createdAt: { type: 'datetime', fieldName: 'created_at' },
  },
})

/** The older serialisation shape: numbers and strings only. */
export class LegacyGadget extends Gadget {
  static getDataFullFidelity = false
}

export const LegacyGadgetSchema = new EntitySchema<LegacyGadget>({
  class: LegacyGadget,
  tableName: 'legacy_gadgets',
  properties: { ...GadgetSchema.meta.properties } as never,
})

export class CreateGadgets extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "gadgets" ("id" serial primary key, "name" varchar(255) not null, "price" numeric(10,2) not null,
        "active" boolean not null, "tags" jsonb not null, "notes" text null, "created_at" timestamptz not null)`,
    )
    this.addSql('create view "legacy_gadgets" as select * from "gadgets"')
  }
  override async down(): Promise<void> {
    this.addSql('drop view "legacy_gadgets"')
    this.addSql('drop table "gadgets"')
  }
}

export const migrations = [{ name: 'Migration20261121000000_create_gadgets', class: CreateGadgets }]

/** A {@link oneTable}'s column: its MikroORM type (`'text'`, `'string[]'`, `'json'`…) and SQL definition. */
export type OneTableColumn = readonly [type: string, sql: string]

/** The entities and migrations of a {@link oneTable}, for `databaseSuite` or the database plugin. */
export interface OneTable<T> {
  entities: [EntitySchema<T>]
  migrations: [SqlMigration]
}

/**
 * One table of a suite's own, mapped to `entity`: an `id serial primary key` and `columns`, in
 * their order, plus `more` statements after the `create table` (an index, say).
 *
 * @example
 * class Note { id!: number; tags: string[] = [] }
 * const test = databaseSuite('…', oneTable(Note, 'notes', { tags: ['string[]', 'text[] not null'] }))
 */
export function oneTable<T extends { id: number }>(
  entity: new () => T,
  table: string,
  columns: { [K in Exclude<keyof T & string, 'id'>]: OneTableColumn },
  more: string[] = [],
): OneTable<T> {
  const entries = Object.entries<OneTableColumn>(columns)
  const schema = new EntitySchema<T>({
    class: entity,
    tableName: table,
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      ...Object.fromEntries(entries.map(([name, [type]]) => [name, { type }])),
    } as never,
  })
  const definitions = entries.map(([name, [, sql]]) => `, ${name} ${sql}`).join('')
  const migration = defineMigration({
    name: `Migration20260101000000_create_${table}`,
    up: [`create table ${table} (id serial primary key${definitions})`, ...more],
  })
  return { entities: [schema], migrations: [migration] }
}

/** What a {@link databaseSuite}'s tests get: the database of their own and the booted kernel. */
export interface DatabaseSuite {
  db: TestDatabase
  kernel: TestKernel
  /** What the suite's `prepare()` did: the migrations it ran, whether the seed wrote. */
  prepared: PrepareResult
}

type TestKernel = ReturnType<typeof createTestKernel>

/** What a {@link databaseSuite}'s kernel runs: the database plugin's options, config, routes. */
export interface DatabaseSuiteOptions extends Pick<
  DatabaseOptions,
  'entities' | 'migrations' | 'seed' | 'requestScope'
> {
  /** The kernel's config, e.g. `{ database: { statement_timeout: 2 } }`. */
  config?: KernelOptions['config']
  /**
   * Declares the suite's routes (or taps) on the kernel, before it boots; `db()` answers the
   * database plugin's API, for the handlers to call.
   */
  routes?: (kernel: TestKernel, db: () => DatabaseApi) => void
}

/**
 * A suite whose kernel has the database plugin alone, on a database of its own (PGlite, or
 * PostgreSQL under `DATABASE_URL`), booted and migrated (`prepare()`) before its tests; closed and
 * the database dropped after them. More hooks of the suite's own run after these.
 */
export function databaseSuite<Extra extends object = object>(
  name: string,
  { config, routes, ...options }: DatabaseSuiteOptions,
): Test<DatabaseSuite & Extra> {
  const test = suite<DatabaseSuite & Extra>(name)
  test.before(async (context) => {
    context.db = await createTestDatabase()
    const kernel = (context.kernel = createTestKernel({
      config,
      plugins: [[database, { ...options, url: context.db.url }]],
    }))
    routes?.(kernel, () => kernel.plugin('database'))
    await kernel.boot()
    context.prepared = await kernel.plugin('database').prepare()
  })
  test.after(async (context: Partial<DatabaseSuite>) => {
    await context.kernel?.close()
    await context.db?.drop()
  })
  return test
}
