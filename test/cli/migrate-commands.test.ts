import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tmpdir } from 'node:os'
import { runCli as run } from 'fw/testing'
import {
  DATABASE_IMPORT,
  databaseSetup,
  tempAppDatabase,
  type TempAppDatabase,
} from './temp-app-database.js'
import { missingDatabase } from '../fixtures/cli-database.js'

// The database commands on an app of the auth plugin and its own migrations, against a database of
// this suite's own: a fresh PostgreSQL database on the PostgreSQL pass, a PGlite directory
// otherwise (in-memory PGlite would not outlive each CLI process). The tests run in order, each
// on the state the one before left.
const test = suite<TempAppDatabase>('migrate commands')

// The app's migrations start with a timestamp older than the auth plugin's
// (Migration20261121130000_create_auth_tables): `bookmarks` references auth's `users` all the same.
// Its seed writes whatever the database holds: one more note at each run.
tempAppDatabase(test, 'fw-migrate-commands-', {
  preamble: `${DATABASE_IMPORT}
import auth from ${JSON.stringify(import.meta.resolve('fw/plugins/auth'))}`,
  setup: `${databaseSetup(
    [
      {
        name: '20260101000000_one_way',
        up: ['create table notes (id serial primary key, body text not null)'],
      },
      {
        name: '20260102000000_create_bookmarks',
        up: [
          'create table bookmarks (id serial primary key, user_id int not null references users (id))',
        ],
        down: ['drop table bookmarks'],
      },
    ],
    "insert into notes (body) values ('seeded')",
  )}
  kernel.register(auth)`,
})

/** The CLI with room for a loaded machine (PGlite's start alone can take seconds there). */
const runCli = (args: readonly string[], options: { env: NodeJS.ProcessEnv }) =>
  run(args, { ...options, timeoutMs: 180_000 })

async function status(env: NodeJS.ProcessEnv): Promise<string> {
  const { code, stdout, stderr } = await runCli(['migrate', '--status'], { env })
  assert.is(code, 0, stderr)
  return stdout
}

test('read-only commands on a database that does not exist: exit 1 naming it, nothing created', async ({
  env,
  dir,
}) => {
  const { name, url, assertStillMissing } = missingDatabase(dir ?? tmpdir())
  for (const args of [['migrate', '--status'], ['migrate:rollback'], ['db:seed']]) {
    const { code, stderr } = await runCli(args, { env: { ...env, DATABASE_URL: url } })
    assert.is(code, 1, args.join(' '))
    assert.match(stderr, name)
    assert.match(stderr, 'does not exist')
    assert.not.match(stderr, '    at ')
  }
  await assertStillMissing()
})

test('migrate runs a plugin migration before the app migrations that depend on it', async ({
  env,
}) => {
  const { code, stdout, stderr } = await runCli(['migrate'], { env })
  assert.is(code, 0, stderr)
  const order = [...stdout.matchAll(/migrated (\S+)/g)].map((m) => m[1])
  assert.equal(order, [
    'Migration20261121130000_create_auth_tables',
    '20260101000000_one_way',
    '20260102000000_create_bookmarks',
  ])
  assert.match(await status(env), '3 ran, 0 pending')
})

test('migrate:rollback reverts the last migration', async ({ env }) => {
  const { code, stdout, stderr } = await runCli(['migrate:rollback'], { env })
  assert.is(code, 0, stderr)
  assert.match(stdout, 'reverted 20260102000000_create_bookmarks')
  assert.match(await status(env), /pending\s+20260102000000_create_bookmarks\n2 ran, 1 pending/)
})

test('migrate:rollback refuses a migration without down, reverting nothing', async ({ env }) => {
  const { code, stderr } = await runCli(['migrate:rollback', '--step', '2'], { env })
  assert.is(code, 1)
  assert.match(stderr, 'Migration 20260101000000_one_way has no down')
  assert.not.match(stderr, '    at ')
  assert.match(await status(env), '2 ran, 1 pending')
  const bad = await runCli(['migrate:rollback', '--step', '0'], { env })
  assert.is(bad.code, 1)
  assert.match(bad.stderr, "--step must be a whole number from 1, got '0'")
})

test('db:seed refuses while a migration is pending, then runs the seeds whatever the database holds', async ({
  env,
}) => {
  const pending = await runCli(['db:seed'], { env })
  assert.is(pending.code, 1)
  assert.match(
    pending.stderr,
    '1 migration(s) have not run (first: 20260102000000_create_bookmarks)',
  )
  assert.is((await runCli(['migrate'], { env })).code, 0) // seeds: one note
  const { code, stdout, stderr } = await runCli(['db:seed'], { env }) // a second note
  assert.is(code, 0, stderr)
  assert.match(stdout, 'Seeded.')
})

test('migrate:fresh is refused in production without --force; with it, drops and migrates', async ({
  env,
}) => {
  const production = { ...env, NODE_ENV: 'production' }
  const refused = await runCli(['migrate:fresh', '--seed'], { env: production })
  assert.is(refused.code, 1)
  assert.match(refused.stderr, 'add --force')
  const forced = await runCli(['migrate:fresh', '--seed', '--force'], { env: production })
  assert.is(forced.code, 0, forced.stderr)
  assert.match(forced.stdout, "Dropped the schema's objects.")
  assert.match(forced.stdout, '3 migration(s) ran.')
  assert.match(forced.stdout, 'Seeded the database.')
  assert.match(await status(env), '3 ran, 0 pending')
})

test.run()
