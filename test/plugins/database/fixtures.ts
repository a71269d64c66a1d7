import { DecimalType, EntitySchema } from '@mikro-orm/core'
import { suite, type Test } from 'uvu'
import type { Kernel } from 'fw'
import database, {
  createTestDatabase,
  Migration,
  type DatabaseOptions,
  type TestDatabase,
} from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'

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
  kernel: Kernel
}

/**
 * A suite whose kernel has the database plugin alone, on a database of its own (PGlite, or
 * PostgreSQL under `DATABASE_URL`), booted and migrated (`prepare()`) before its tests; closed and
 * the database dropped after them. More hooks of the suite's own run after these.
 */
export function databaseSuite<Extra extends object = object>(
  name: string,
  options: Pick<DatabaseOptions, 'entities' | 'migrations'>,
): Test<DatabaseSuite & Extra> {
  const test = suite<DatabaseSuite & Extra>(name)
  test.before(async (context) => {
    context.db = await createTestDatabase()
    context.kernel = createTestKernel({
      plugins: [[database, { ...options, url: context.db.url }]],
    })
    await context.kernel.boot()
    await context.kernel.plugin('database').prepare()
  })
  test.after(async (context: Partial<DatabaseSuite>) => {
    await context.kernel?.close()
    await context.db?.drop()
  })
  return test
}
