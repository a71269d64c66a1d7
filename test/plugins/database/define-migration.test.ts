// A plugin ships migrations as SQL with `defineMigration`, importing nothing from MikroORM: they
// run with the app's (in timestamp order), on PGlite or, with DATABASE_URL, on PostgreSQL, and revert.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, FwError } from 'fw'
import { PassThrough } from 'node:stream'
import database, {
  createTestDatabase,
  defineMigration,
  requireMigrated,
  type SqlMigration,
} from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'

const test = suite('database defineMigration')

const createVisits = defineMigration({
  name: '20260101000000_hello_stats_visits',
  up: [
    'create table hello_stats_visits (name text primary key, visits integer not null)',
    "insert into hello_stats_visits (name, visits) values ('ada', 1)",
  ],
  down: ['drop table hello_stats_visits'],
})

// A function adds its statements with `sql(…)`; it may compute them first.
const addSeen = defineMigration({
  name: '20260102000000_hello_stats_seen',
  up: async (sql) => {
    const column = await Promise.resolve('last_seen')
    sql(`alter table hello_stats_visits add column ${column} timestamptz null`)
  },
  down: (sql) => sql('alter table hello_stats_visits drop column last_seen'),
})

const helloStats = definePlugin({
  name: 'hello-stats',
  dependsOn: ['database'],
  setup(kernel) {
    // Added out of order: they still run in timestamp order.
    kernel.plugin('database').addMigrations([addSeen, createVisits])
  },
})

test('runs SQL migrations in timestamp order, reports them, and reverts them', async () => {
  const db = await createTestDatabase()
  const kernel = createTestKernel({
    plugins: [[database, { url: db.url, entities: [] }], [helloStats]],
  })
  try {
    await kernel.boot()
    const api = kernel.plugin('database')
    assert.equal(await api.prepare(), {
      migrated: [createVisits.name, addSeen.name],
      seeded: false,
    })
    const rows = await api.runStatement({
      sql: 'select name, visits, last_seen from hello_stats_visits',
      bindings: [],
    })
    assert.equal(rows, [{ name: 'ada', visits: 1, last_seen: null }])
    assert.equal(await api.status(), { executed: [createVisits.name, addSeen.name], pending: [] })
    assert.equal(await api.rollback(2), [addSeen.name, createVisits.name])
    assert.equal(await api.status(), { executed: [], pending: [createVisits.name, addSeen.name] })
    const left = await api.runStatement({
      sql: "select count(*)::int as n from information_schema.tables where table_name = 'hello_stats_visits'",
      bindings: [],
    })
    assert.equal(left, [{ n: 0 }])
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test('a migration without down cannot be reverted', async () => {
  const db = await createTestDatabase()
  const oneWay = defineMigration({
    name: '20260103000000_one_way',
    up: ['create table one_way (id int)'],
  })
  const kernel = createTestKernel({
    plugins: [[database, { url: db.url, entities: [], migrations: [oneWay] }]],
  })
  try {
    await kernel.boot()
    const api = kernel.plugin('database')
    await api.prepare()
    const error = await api.rollback().then(
      () => undefined,
      (e: unknown) => e as FwError,
    )
    assert.is(error?.code, 'FW_ERR_DATABASE_MIGRATION_IRREVERSIBLE')
    assert.match(String(error?.message), 'cannot be reverted')
    assert.equal(await api.status(), { executed: [oneWay.name], pending: [] })
  } finally {
    await kernel.close()
    await db.drop()
  }
})

// What a plugin's command checks before it touches its tables: a stub not written yet (its `up`
// is empty, as `fw make:migration` writes it) is named, since `fw migrate` never runs it.
test('requireMigrated names a first pending migration not written yet', async () => {
  const db = await createTestDatabase()
  const stub = defineMigration({ name: '20260103000000_hello_stats_later', up: [] })
  const kernel = createTestKernel({
    plugins: [[database, { url: db.url, entities: [], migrations: [createVisits, stub] }]],
  })
  const context = {
    kernel,
    env: {},
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    colorDepth: 1,
  }
  try {
    await kernel.boot()
    assert.equal((await kernel.plugin('database').prepare()).migrated, [createVisits.name])
    const refused = await requireMigrated(context).then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    assert.is(
      refused?.message,
      '1 migration(s) have not run (first: 20260103000000_hello_stats_later, not written yet: its up has no statements). Write its SQL, or delete it, then run fw migrate.',
    )
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test('refuses an unusable name or steps with FW_ERR_DATABASE_MIGRATION_INVALID', () => {
  const bad: unknown[] = [
    { name: '', up: ['select 1'] },
    { name: 'has space', up: ['select 1'] },
    { name: '20260101_x', up: 'create table x (id int)' },
    { name: '20260101_x', up: ['select 1', ''] },
    { name: '20260101_x', up: ['select 1'], down: 42 },
  ]
  for (const migration of bad) {
    try {
      defineMigration(migration as SqlMigration)
      assert.unreachable(JSON.stringify(migration))
    } catch (error) {
      assert.instance(error, FwError)
      assert.is((error as FwError).code, 'FW_ERR_DATABASE_MIGRATION_INVALID')
    }
  }
})

test.run()
