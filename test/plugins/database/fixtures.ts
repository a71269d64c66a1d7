import { DecimalType, EntitySchema } from '@mikro-orm/core'
import { suite, type Test } from 'uvu'
import type { KernelOptions } from 'fw'
import database, {
  createTestDatabase,
  Migration,
  type DatabaseApi,
  type DatabaseOptions,
  type PrepareResult,
  type TestDatabase,
} from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'

/** Whether this run is on PostgreSQL (`DATABASE_URL=postgresql://…`); else it is on PGlite. */
export const onPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')

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
