// fw's migration runner, through the database plugin's API: a database MikroORM's migrator
// migrated (its `fw_migrations` table and rows exactly as it wrote them) is taken as it is; a run is
// one transaction, split where a migration is not transactional; a class migration has the members of MikroORM's `Migration`; what it runs is
// recorded as `query.executed` in the request that ran it. PGlite, or PostgreSQL with DATABASE_URL.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { FwError, json, type Kernel } from 'fw'
import database, {
  createTestDatabase,
  defineMigration,
  Migration,
  type MigrationEntry,
  type MigrationObject,
  type TestDatabase,
} from 'fw/plugins/database'
import { createTestKernel, eventsOf } from 'fw/testing'
import { closeAfterEach } from '../../fixtures/app-suite.js'

interface Context {
  db?: TestDatabase
  kernel?: Kernel
}

const test = suite<Context>('database migration runner', {})

closeAfterEach(test, 'kernel', 'db')

/** A booted kernel with the database plugin alone and these migrations, not yet migrated. */
async function boot(context: Context, migrations: readonly MigrationEntry[]): Promise<Kernel> {
  context.db = await createTestDatabase()
  const kernel = createTestKernel({
    plugins: [[database, { url: context.db.url, entities: [], migrations }]],
  })
  context.kernel = kernel
  await kernel.boot()
  await kernel.plugin('database').ready()
  return kernel
}

const rowsOf = (kernel: Kernel, sql: string) =>
  kernel.plugin('database').runStatement({ sql, bindings: [] })

class CreateShelves extends Migration {
  override up(): void {
    this.addSql('create table "shelves" ("id" serial primary key, "name" text not null)')
  }
  override down(): void {
    this.addSql('drop table "shelves"')
  }
}

class AddShelfColour extends Migration {
  override up(): void {
    this.addSql('alter table "shelves" add column "colour" text null')
  }
  override down(): void {
    this.addSql('alter table "shelves" drop column "colour"')
  }
}

class CreateBooks extends Migration {
  override up(): void {
    this.addSql('create table "books" ("id" serial primary key, "title" text not null)')
  }
  override down(): void {
    this.addSql('drop table "books"')
  }
}

const OLD: MigrationObject[] = [
  { name: 'Migration20260101000000_create_shelves', class: CreateShelves },
  { name: 'Migration20260102000000_add_shelf_colour', class: AddShelfColour },
]
const NEW: MigrationObject = { name: 'Migration20260103000000_create_books', class: CreateBooks }

test('takes a database migrated by MikroORM’s migrator as it is: its table, its rows, names with or without an extension', async (context) => {
  const kernel = await boot(context, [...OLD, NEW])
  const api = kernel.plugin('database')
  // Connects (a statement of the read path must not be the first: it would start a pool of its own).
  assert.equal(await api.status(), { executed: [], pending: [...OLD, NEW].map((m) => m.name) })
  // What MikroORM's migrator made: its table (knex's DDL for `fw_migrations`), the migrations'
  // tables, and a row per migration, one of them spelt with its file's extension.
  for (const sql of [
    'create table "public"."fw_migrations" ("id" serial primary key, "name" varchar(255), "executed_at" timestamptz default CURRENT_TIMESTAMP)',
    'create table "shelves" ("id" serial primary key, "name" text not null, "colour" text null)',
    `insert into "public"."fw_migrations" ("name") values ('Migration20260101000000_create_shelves')`,
    `insert into "public"."fw_migrations" ("name") values ('Migration20260102000000_add_shelf_colour.ts')`,
  ])
    await rowsOf(kernel, sql)
  assert.equal(await api.status(), {
    executed: OLD.map((m) => m.name),
    pending: [NEW.name],
  })
  assert.equal(await api.prepare(), { migrated: [NEW.name], seeded: false })
  const rows = await rowsOf(kernel, 'select id, name from fw_migrations order by id')
  assert.equal(rows, [
    { id: 1, name: 'Migration20260101000000_create_shelves' },
    { id: 2, name: 'Migration20260102000000_add_shelf_colour.ts' },
    { id: 3, name: 'Migration20260103000000_create_books' },
  ])
  // The row spelt with `.ts` is the migration's all the same: reverting removes it.
  assert.equal(await api.rollback(2), [NEW.name, OLD[1]!.name])
  assert.equal(await rowsOf(kernel, 'select name from fw_migrations order by id'), [
    { name: 'Migration20260101000000_create_shelves' },
  ])
  const columns = await rowsOf(
    kernel,
    "select column_name from information_schema.columns where table_name = 'shelves' order by ordinal_position",
  )
  assert.equal(columns, [{ column_name: 'id' }, { column_name: 'name' }])
})

test('creates the migrations table with MikroORM’s columns, and records each migration once', async (context) => {
  const kernel = await boot(context, OLD)
  const api = kernel.plugin('database')
  assert.equal(await api.prepare(), { migrated: OLD.map((m) => m.name), seeded: false })
  assert.equal(await api.prepare(), { migrated: [], seeded: false })
  const columns = await rowsOf(
    kernel,
    `select column_name, data_type, coalesce(column_default like 'nextval%', false) as serial
       from information_schema.columns where table_name = 'fw_migrations' order by ordinal_position`,
  )
  assert.equal(columns, [
    { column_name: 'id', data_type: 'integer', serial: true },
    { column_name: 'name', data_type: 'character varying', serial: false },
    { column_name: 'executed_at', data_type: 'timestamp with time zone', serial: false },
  ])
  const [state] = api.migrations()
  assert.match(String(state?.executed_at), /^\d{4}-\d\d-\d\dT/)
})

test('a migration that fails rolls the whole run back, and names itself', async (context) => {
  const broken = defineMigration({
    name: '20260102000000_broken',
    up: ['create table "after_shelves" ("id" int)', 'select * from "no_such_table"'],
  })
  const kernel = await boot(context, [OLD[0]!, broken])
  const api = kernel.plugin('database')
  const error = await api.prepare().then(
    () => undefined,
    (e: unknown) => e as Error,
  )
  assert.match(String(error?.message), /^Migration 20260102000000_broken \(up\) failed: /)
  assert.match(String(error?.message), 'no_such_table')
  const tables = await rowsOf(
    kernel,
    "select table_name from information_schema.tables where table_name in ('shelves', 'after_shelves', 'fw_migrations') order by table_name",
  )
  assert.equal(tables, [{ table_name: 'fw_migrations' }], 'nothing of the run is left')
  assert.equal(await api.status(), { executed: [], pending: [OLD[0]!.name, broken.name] })
})

test('a class migration runs statements at once with execute(), in its transaction, and queues knex builders', async (context) => {
  class Backfill extends Migration {
    override async up(): Promise<void> {
      await this.execute('insert into "shelves" ("name") values (?), (?)', ['oak', 'pine'])
      const [row] = await this.execute<{ n: number }>('select count(*)::int as n from "shelves"')
      this.addSql(
        this.getKnex()
          .table('shelves')
          .update({ colour: `count ${row?.n}` }),
      )
    }
    override isTransactional(): boolean {
      return true
    }
  }
  const kernel = await boot(context, [
    ...OLD,
    { name: 'Migration20260104000000_backfill', class: Backfill },
  ])
  await kernel.plugin('database').prepare()
  assert.equal(await rowsOf(kernel, 'select name, colour from shelves order by id'), [
    { name: 'oak', colour: 'count 2' },
    { name: 'pine', colour: 'count 2' },
  ])
})

class IndexAndVacuumShelves extends Migration {
  override up(): void {
    this.addSql('create index "shelves_name_index" on "shelves" ("name")')
    this.addSql('vacuum "shelves"')
  }
  override down(): void {
    this.addSql('drop index "shelves_name_index"')
    this.addSql('vacuum "shelves"')
  }
  override isTransactional(): boolean {
    return false
  }
}

const indexNames = (kernel: Kernel) =>
  rowsOf(kernel, "select indexname from pg_indexes where tablename = 'shelves' order by indexname")

test('a migration that is not transactional runs between transactions: up, down, and a failure after it', async (context) => {
  const outside = { name: 'Migration20260101120000_index', class: IndexAndVacuumShelves }
  const kernel = await boot(context, [OLD[0]!, outside, OLD[1]!])
  const api = kernel.plugin('database')
  // `vacuum` is refused inside a transaction (as `create index concurrently` is), and the table it
  // reads must be committed first: the run commits the migration before it, runs it alone, goes on.
  assert.equal(await api.prepare(), {
    migrated: [OLD[0]!.name, outside.name, OLD[1]!.name],
    seeded: false,
  })
  assert.equal(await indexNames(kernel), [
    { indexname: 'shelves_name_index' },
    { indexname: 'shelves_pkey' },
  ])
  assert.equal(await api.rollback(2), [OLD[1]!.name, outside.name])
  assert.equal(await indexNames(kernel), [{ indexname: 'shelves_pkey' }])
  assert.equal(await api.status(), {
    executed: [OLD[0]!.name],
    pending: [outside.name, OLD[1]!.name],
  })
})

test('a failure after a migration that is not transactional keeps what ran before it', async (context) => {
  class Broken extends Migration {
    override up(): void {
      this.addSql('alter table "no_such_table" add column "x" text')
    }
  }
  const outside = { name: 'Migration20260101120000_index', class: IndexAndVacuumShelves }
  const broken = { name: 'Migration20260103000000_broken', class: Broken }
  const kernel = await boot(context, [OLD[0]!, outside, OLD[1]!, broken])
  const api = kernel.plugin('database')
  const error = await api.prepare().then(
    () => undefined,
    (e: unknown) => e as Error,
  )
  assert.match(String(error?.message), /^Migration Migration20260103000000_broken \(up\) failed: /)
  assert.equal(await api.status(), {
    executed: [OLD[0]!.name, outside.name],
    pending: [OLD[1]!.name, broken.name],
  })
})

test('records what a migration runs as query.executed in the request that ran it', async (context) => {
  const kernel = await boot(context, OLD)
  kernel.router.post('migrate', async () => json(await kernel.plugin('database').prepare()))
  const res = await kernel.inject({ method: 'POST', url: '/migrate' })
  assert.is(res.status, 200, res.body)
  const statements = eventsOf(res.events, 'query.executed').map((e) => e.data.sql)
  assert.ok(
    statements.some((sql) => sql.startsWith('create table "shelves"')),
    statements.join('\n'),
  )
  assert.ok(statements.some((sql) => sql.startsWith('insert into "public"."fw_migrations"')))
})

test('refuses a migration class that does not extend Migration, naming it', async (context) => {
  class NotAMigration {
    up(): void {}
    down(): void {}
  }
  const foreign = { name: '20260101000000_foreign', class: NotAMigration }
  // Opening the database (here `ready()`) checks every migration.
  const error = await boot(context, [foreign as unknown as MigrationObject]).then(
    () => undefined,
    (e: unknown) => e as FwError,
  )
  assert.instance(error, FwError)
  assert.is(error?.code, 'FW_ERR_DATABASE_MIGRATION_INVALID')
  assert.match(String(error?.message), '20260101000000_foreign')
  assert.match(String(error?.message), "'fw/plugins/database'")
})

test.run()
